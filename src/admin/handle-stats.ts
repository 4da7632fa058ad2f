import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import { noStore, sendJson } from '../http/send.js';
import { microsToUsd } from '../metering/money.js';
import { sinceToEpochMs } from '../records/record-store.js';
import { cacheStats, type DeploymentCacheStats } from '../store/cache-stats.js';
import { deploymentKey } from '../core/deployment-key.js';
import { requestStats, type StatsBucket } from '../store/request-stats.js';
import type { DatabaseSchema } from '../store/schema.js';
import { storeCall } from '../store/store-call.js';
import { badParameter } from './bad-parameter.js';
import type { AdminStatsResponse, DeploymentCacheView, OriginChoice, StatsBucketView } from './admin-api-types.js';
import { breakdownViews, type BreakdownViews } from './stats-breakdown-views.js';
import { breakdownStats } from '../store/breakdown-stats.js';
import { originParameter } from './origin-parameter.js';
import { REQUEST_ORIGINS } from '../core/request-origin.js';
import { actorOf } from '../access/request-actor.js';
import type { TeamStore } from '../teams/team-store.js';
import { teamScope } from './team-scope.js';

export interface AdminStatsDeps {
  db: Kysely<DatabaseSchema>;
  /** Where `team=` is found (by id or name), and the names `by_team` shows. */
  teams: Pick<TeamStore, 'find' | 'list'>;
  /** Writes the records and spend rows still queued, so the figures include every finished request. */
  flush(): Promise<void>;
}

/** A day by the minute: enough for the dashboard's charts, and a bound on what one call computes. */
const MAX_BUCKETS = 1_440;
const MAX_BUCKET_S = 86_400;
const DEFAULT_BUCKET_S = 60;
const DEFAULT_SPAN_MS = 3_600_000;
const QUERY_PARAMETERS = ['since', 'bucket_s', 'origin', 'team'] as const;

/**
 * `GET /admin/stats?since=<ISO 8601>&bucket_s=<seconds>&origin=<origin|all>&team=<id|name>` →
 * `AdminStatsResponse`: every bucket from `since` (rounded down to a whole bucket, so successive
 * calls line up) to now, each deployment's prompt-cache figures over the whole range, and the
 * incident view's breakdowns (outcomes, tokens, by route, provider, deployment, key and team) of
 * `origin`'s requests (callers' by default). Narrowed to teams (`team=`, or a team role's own
 * teams: team-scope.ts), the buckets' counts, the totals and the routes, keys and teams are those
 * teams' requests; latency percentiles, prompt-cache figures, connections and deployments stay
 * every team's (docs/teams-and-access.md).
 */
export async function handleStats(request: IncomingMessage, response: ServerResponse, deps: AdminStatsDeps): Promise<void> {
  const nowMs = Date.now();
  const query = new URL(request.url ?? '/', 'http://gateway.invalid').searchParams;
  const { sinceMs, bucketS, origin } = parseStatsQuery(query, nowMs);
  const teams = await teamScope(actorOf(request), query.get('team'), (team) => deps.teams.find(team));
  const bucketMs = bucketS * 1000;
  const alignedSinceMs = Math.floor(sinceMs / bucketMs) * bucketMs;
  const bucketCount = Math.max(1, Math.ceil((nowMs + 1 - alignedSinceMs) / bucketMs));
  if (bucketCount > MAX_BUCKETS) {
    throw badParameter('bucket_s', `From "since" to now at bucket_s=${bucketS} is ${bucketCount} buckets; at most ${MAX_BUCKETS} are served: raise "bucket_s" or move "since" later.`);
  }
  const untilMs = alignedSinceMs + bucketCount * bucketMs;
  // One after the other: on SQLite each call queues on the store thread.
  const range = { sinceMs: alignedSinceMs, bucketMs, bucketCount };
  const { buckets, cache, breakdowns, teamNames } = await storeCall(
    deps.flush().then(async () => ({
      buckets: await requestStats(deps.db, range),
      cache: await cacheStats(deps.db, { sinceMs: alignedSinceMs, untilMs }),
      breakdowns: await breakdownStats(deps.db, range, origin === 'all' ? REQUEST_ORIGINS : [origin], teams),
      teamNames: new Map((await deps.teams.list()).map((team) => [team.id, team.name])),
    })),
  );
  const { buckets: bucketBreakdowns, bucketCounts, ...views } = breakdownViews(breakdowns, bucketCount, (id) => teamNames.get(id) ?? null);
  const body: AdminStatsResponse = {
    since: new Date(alignedSinceMs).toISOString(),
    until: new Date(untilMs).toISOString(),
    bucket_s: bucketS,
    origin,
    teams: teams ?? null,
    data: buckets.map((bucket, index) => ({ ...toBody(bucket), ...(teams ? bucketCounts[index] : {}), ...bucketBreakdowns[index]! })),
    cache: cache.map(toCacheBody),
    ...views,
  };
  sendJson(response, 200, body, noStore());
}

/** `hit_ratio`: the share of the deployment's prompt tokens read from the provider's cache (null without any). */
function toCacheBody(stats: DeploymentCacheStats): DeploymentCacheView {
  return {
    deployment: deploymentKey(stats.connection, stats.model),
    connection: stats.connection,
    model: stats.model,
    input_tokens: stats.inputTokens,
    cache_read_tokens: stats.cacheReadTokens,
    cache_write_tokens: stats.cacheWriteTokens,
    hit_ratio: stats.inputTokens === 0 ? null : stats.cacheReadTokens / stats.inputTokens,
  };
}

function toBody(bucket: StatsBucket): Omit<StatsBucketView, keyof BreakdownViews['buckets'][number]> {
  return {
    start: new Date(bucket.startMs).toISOString(),
    requests: bucket.requests,
    ok_share: bucket.okShare,
    fallback_share: bucket.fallbackShare,
    attempts_per_request: bucket.attemptsPerRequest,
    added_latency_ms: { p50: bucket.addedLatencyP50Ms, p99: bucket.addedLatencyP99Ms },
    first_token_ms: { p50: bucket.firstTokenP50Ms },
    spend_usd: microsToUsd(bucket.spendMicros),
  };
}

/** Refuses (never ignores or clamps) a bad or unknown parameter, naming it. */
function parseStatsQuery(query: URLSearchParams, nowMs: number): { sinceMs: number; bucketS: number; origin: OriginChoice } {
  for (const name of new Set(query.keys())) {
    if (!(QUERY_PARAMETERS as readonly string[]).includes(name)) throw badParameter(name, `Unknown query parameter "${name}"; expected one of ${QUERY_PARAMETERS.join(', ')}.`);
    if (query.getAll(name).length > 1) throw badParameter(name, `Query parameter "${name}" is given more than once.`);
  }
  const since = query.get('since');
  const sinceMs = since === null ? nowMs - DEFAULT_SPAN_MS : sinceToEpochMs(since);
  if (sinceMs === undefined) throw badParameter('since', `Query parameter "since" must be an ISO 8601 time or epoch milliseconds (got "${since}").`);
  if (sinceMs > nowMs) throw badParameter('since', `Query parameter "since" is in the future (got "${since}").`);
  const bucket = query.get('bucket_s');
  const bucketS = bucket === null ? DEFAULT_BUCKET_S : /^\d+$/.test(bucket) ? Number(bucket) : Number.NaN;
  // The figures are rolled up per minute as records are stored: a bucket is whole minutes.
  if (!(bucketS >= 60 && bucketS <= MAX_BUCKET_S && bucketS % 60 === 0)) {
    throw badParameter('bucket_s', `Query parameter "bucket_s" must be a whole number of minutes in seconds (60, 300, 900, …) up to ${MAX_BUCKET_S} (got "${bucket}").`);
  }
  return { sinceMs, bucketS, origin: originParameter(query) };
}
