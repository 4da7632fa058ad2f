import type { FailureKind } from '../core/failure-kind.js';
import { deploymentKey } from '../core/deployment-key.js';
import { REFUSAL_CLASSES, type RefusalClass } from '../core/request-outcome.js';
import { microsToUsd } from '../metering/money.js';
import type { BreakdownStats, OutcomeSums } from '../store/breakdown-stats.js';
import { percentileOfHistogram, type HistogramBin } from '../store/percentile-of-histogram.js';
import { MINUTE_MS } from '../store/record-facts.js';
import type {
  AdminStatsResponse,
  BreakdownFigures,
  DeploymentStatsView,
  FailingDeploymentView,
  KeyStatsView,
  OutcomesView,
  StatsBucketView,
  StatsTotalsView,
  TokensView,
} from './admin-api-types.js';

/** The fields of `GET /admin/stats` the breakdown rollups give, per bucket and over the range. */
export type BreakdownViews = Pick<AdminStatsResponse, 'totals' | 'by_route' | 'by_provider' | 'by_deployment' | 'by_key' | 'by_team' | 'failing_deployments'> & {
  buckets: Pick<StatsTotalsView, 'outcomes' | 'attempts_per_reached_request' | 'tokens'>[];
  /** Each bucket's counts from the same rollups, for a view narrowed to teams (the request rollups are every team's). */
  bucketCounts: Pick<StatsBucketView, 'requests' | 'ok_share' | 'fallback_share' | 'attempts_per_request' | 'spend_usd'>[];
};

const FAILING_DEPLOYMENTS_SHOWN = 5;
/** Not a deployment's failure: the caller left, or a hedge's other attempt won. */
const NOT_FAILURES: ReadonlySet<string> = new Set(['ok', 'cancelled']);

/** Shares, percentiles and rankings from the summed rollups; `bucketCount` buckets from `sinceMs`; `teamName`: a team's name by its id (null: deleted). */
export function breakdownViews(stats: BreakdownStats, bucketCount: number, teamName: (id: string) => string | null): BreakdownViews {
  const perBucket = Array.from({ length: bucketCount }, () => new Tally());
  for (const row of stats.bucketOutcomes) perBucket[row.bucket]?.add(row.outcome, row);
  const total = new Tally();
  for (const tally of perBucket) total.merge(tally);
  return {
    buckets: perBucket.map((tally) => ({ outcomes: tally.outcomes(), attempts_per_reached_request: tally.attemptsPerReached(), tokens: tally.tokens() })),
    bucketCounts: perBucket.map((tally) => ({
      requests: tally.sums.requests,
      ok_share: tally.share(tally.served(), tally.sums.requests),
      fallback_share: tally.share(tally.sums.fallback, tally.sums.routed),
      attempts_per_request: tally.share(tally.sums.attempts, tally.sums.requests),
      spend_usd: microsToUsd(tally.sums.cost_micros),
    })),
    totals: { requests: total.sums.requests, outcomes: total.outcomes(), attempts_per_reached_request: total.attemptsPerReached(), tokens: total.tokens(), spend_usd: microsToUsd(total.sums.cost_micros) },
    by_route: facetViews(stats, 'route').map(({ name, figures }) => ({ route: name === '' ? null : name, ...figures })),
    by_provider: facetViews(stats, 'connection').map(({ name, detail, figures }) => ({ connection: name, provider: detail, ...figures })),
    by_key: seriesViews(stats, 'key', bucketCount).map(({ name, ...figures }) => ({ key_name: name, ...figures })),
    by_team: seriesViews(stats, 'team', bucketCount).map(({ name, ...figures }) => ({ team: name, name: teamName(name), ...figures })),
    ...deploymentViews(stats, bucketCount),
  };
}

/**
 * One facet's requests by name, with their first-token percentiles; most requests first. A
 * connection's `detail` is its provider kind; a route's is a team's id, its rows are summed over.
 */
function facetViews(stats: BreakdownStats, facet: 'route' | 'connection'): { name: string; detail: string; figures: BreakdownFigures }[] {
  const tallies = new Map<string, { name: string; detail: string; tally: Tally; bins: HistogramBin[] }>();
  const entry = (name: string, rowDetail: string) => {
    const detail = facet === 'route' ? '' : rowDetail;
    const id = JSON.stringify([name, detail]);
    let found = tallies.get(id);
    if (!found) tallies.set(id, (found = { name, detail, tally: new Tally(), bins: [] }));
    return found;
  };
  for (const row of stats.facetOutcomes) if (row.facet === facet) entry(row.name, row.detail).tally.add(row.outcome, row);
  for (const row of stats.facetFirstTokens) if (row.facet === facet) entry(row.name, row.detail).bins.push({ value: row.bin, count: row.count });
  return [...tallies.values()]
    .filter(({ tally }) => tally.sums.requests > 0)
    .sort((a, b) => b.tally.sums.requests - a.tally.sums.requests || a.name.localeCompare(b.name))
    .map(({ name, detail, tally, bins }) => ({
      name,
      detail,
      figures: {
        requests: tally.sums.requests,
        ok_share: tally.share(tally.served(), tally.sums.requests),
        fallback_share: tally.share(tally.sums.fallback, tally.sums.routed),
        first_token_ms: { p50: percentileOfHistogram(bins, 0.5), p99: percentileOfHistogram(bins, 0.99) },
        tokens: tally.tokens(),
        spend_usd: microsToUsd(tally.sums.cost_micros),
        outcomes: tally.outcomes(),
      },
    }));
}

/** Keys' (by name, over their teams) or teams' (by id) requests, tokens and spend, with a series; most requests first. */
function seriesViews(stats: BreakdownStats, facet: 'key' | 'team', bucketCount: number): ({ name: string } & Omit<KeyStatsView, 'key_name'>)[] {
  const keys = new Map<string, Tally>();
  for (const row of stats.facetOutcomes) {
    if (row.facet !== facet) continue;
    const tally = keys.get(row.name) ?? new Tally();
    tally.add(row.outcome, row);
    keys.set(row.name, tally);
  }
  const series = new Map<string, KeyStatsView['series']>();
  for (const row of stats.seriesBuckets) {
    if (row.facet !== facet) continue;
    let points = series.get(row.name);
    if (!points) series.set(row.name, (points = Array.from({ length: bucketCount }, () => ({ spend_usd: 0, input_tokens: 0, output_tokens: 0 }))));
    const point = points[row.bucket];
    if (point) Object.assign(point, { spend_usd: microsToUsd(row.cost_micros), input_tokens: row.input_tokens, output_tokens: row.output_tokens });
  }
  return [...keys.entries()]
    .sort(([nameA, a], [nameB, b]) => b.sums.requests - a.sums.requests || nameA.localeCompare(nameB))
    .map(([name, tally]) => ({
      name,
      requests: tally.sums.requests,
      tokens: tally.tokens(),
      spend_usd: microsToUsd(tally.sums.cost_micros),
      series: series.get(name) ?? Array.from({ length: bucketCount }, () => ({ spend_usd: 0, input_tokens: 0, output_tokens: 0 })),
    }));
}

interface DeploymentTally {
  connection: string;
  model: string;
  attempts: number;
  failures: number;
  kinds: Partial<Record<FailureKind, number>>;
  buckets: { attempts: number; failures: number; bins: HistogramBin[] }[];
  /** Per minute with attempts: whether any failed. */
  failingMinutes: Map<number, boolean>;
}

function deploymentViews(stats: BreakdownStats, bucketCount: number): Pick<BreakdownViews, 'by_deployment' | 'failing_deployments'> {
  const minutesPerBucket = stats.bucketMinutes;
  const deployments = new Map<string, DeploymentTally>();
  const entry = (connection: string, model: string) => {
    const key = deploymentKey(connection, model);
    let found = deployments.get(key);
    if (!found) {
      const buckets = Array.from({ length: bucketCount }, () => ({ attempts: 0, failures: 0, bins: [] as HistogramBin[] }));
      deployments.set(key, (found = { connection, model, attempts: 0, failures: 0, kinds: {}, buckets, failingMinutes: new Map() }));
    }
    return found;
  };
  for (const row of stats.attemptMinutes) {
    const tally = entry(row.connection, row.model);
    const failed = !NOT_FAILURES.has(row.kind);
    const bucket = tally.buckets[Math.floor((row.minute - stats.sinceMinute) / minutesPerBucket)];
    tally.attempts += row.attempts;
    if (bucket) bucket.attempts += row.attempts;
    if (failed) {
      tally.failures += row.attempts;
      if (bucket) bucket.failures += row.attempts;
      tally.kinds[row.kind as FailureKind] = (tally.kinds[row.kind as FailureKind] ?? 0) + row.attempts;
    }
    tally.failingMinutes.set(row.minute, (tally.failingMinutes.get(row.minute) ?? false) || failed);
  }
  for (const row of stats.deploymentFirstTokens) entry(row.connection, row.model).buckets[row.bucket]?.bins.push({ value: row.bin, count: row.count });
  const byDeployment: DeploymentStatsView[] = [...deployments.entries()]
    .sort(([keyA, a], [keyB, b]) => b.attempts - a.attempts || keyA.localeCompare(keyB))
    .map(([key, tally]) => {
      const bins = tally.buckets.flatMap((bucket) => bucket.bins);
      return {
        deployment: key,
        connection: tally.connection,
        model: tally.model,
        attempts: tally.attempts,
        failures: tally.failures,
        failure_kinds: tally.kinds,
        first_token_ms: { p50: percentileOfHistogram(bins, 0.5), p95: percentileOfHistogram(bins, 0.95) },
        series: tally.buckets.map((bucket) => ({ attempts: bucket.attempts, failures: bucket.failures, first_token_p95_ms: percentileOfHistogram(bucket.bins, 0.95) })),
      };
    });
  const failing: FailingDeploymentView[] = [...deployments.entries()]
    .filter(([, tally]) => tally.failures > 0)
    .sort(([keyA, a], [keyB, b]) => b.failures - a.failures || keyA.localeCompare(keyB))
    .slice(0, FAILING_DEPLOYMENTS_SHOWN)
    .map(([key, tally]) => ({ deployment: key, failures: tally.failures, attempts: tally.attempts, failure_kinds: tally.kinds, ...latestFailingRun(tally.failingMinutes) }));
  return { by_deployment: byDeployment, failing_deployments: failing };
}

/**
 * The latest run of failing minutes: it ends at the last minute with a failure and goes back
 * until a minute whose attempts all went well. Minutes without attempts do not end it: an
 * ejected deployment is sent nothing while it is out.
 */
function latestFailingRun(minutes: ReadonlyMap<number, boolean>): { since: string; last_failure: string } {
  const sorted = [...minutes.entries()].sort(([a], [b]) => a - b);
  let last = sorted.length - 1;
  while (last > 0 && !sorted[last]![1]) last -= 1;
  let first = last;
  while (first > 0 && sorted[first - 1]![1]) first -= 1;
  const iso = (minute: number) => new Date(minute * MINUTE_MS).toISOString();
  return { since: iso(sorted[first]![0]), last_failure: iso(sorted[last]![0]) };
}

/** Summed figures by outcome, and what the view derives from them. */
class Tally {
  readonly sums: OutcomeSums = { requests: 0, attempts: 0, reached: 0, fallback: 0, routed: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_micros: 0 };
  readonly byOutcome = new Map<string, number>();

  add(outcome: string, sums: OutcomeSums): void {
    for (const name of Object.keys(this.sums) as (keyof OutcomeSums)[]) this.sums[name] += sums[name];
    this.byOutcome.set(outcome, (this.byOutcome.get(outcome) ?? 0) + sums.requests);
  }

  merge(other: Tally): void {
    for (const name of Object.keys(this.sums) as (keyof OutcomeSums)[]) this.sums[name] += other.sums[name];
    for (const [outcome, requests] of other.byOutcome) this.byOutcome.set(outcome, (this.byOutcome.get(outcome) ?? 0) + requests);
  }

  served(): number {
    return (this.byOutcome.get('served_first_try') ?? 0) + (this.byOutcome.get('served_after_failover') ?? 0);
  }

  share(part: number, whole: number): number | null {
    return whole === 0 ? null : part / whole;
  }

  attemptsPerReached(): number | null {
    return this.share(this.sums.attempts, this.sums.reached);
  }

  tokens(): TokensView {
    return { input: this.sums.input_tokens, output: this.sums.output_tokens, cache_read: this.sums.cache_read_tokens, cache_write: this.sums.cache_write_tokens };
  }

  outcomes(): OutcomesView {
    const refused = Object.fromEntries(REFUSAL_CLASSES.map((name) => [name, this.byOutcome.get(`refused_${name}`) ?? 0])) as Record<RefusalClass, number>;
    const failed: Partial<Record<FailureKind, number>> = {};
    for (const [outcome, requests] of this.byOutcome) if (outcome.startsWith('failed_')) failed[outcome.slice('failed_'.length) as FailureKind] = requests;
    return {
      served_first_try: this.byOutcome.get('served_first_try') ?? 0,
      served_after_failover: this.byOutcome.get('served_after_failover') ?? 0,
      refused,
      failed_upstream: failed,
      cancelled: this.byOutcome.get('cancelled') ?? 0,
    };
  }
}
