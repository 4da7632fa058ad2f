import type { Logger } from 'pino';
import type { AdminKeysDeps } from '../admin/handle-keys.js';
import type { AdminTeamsDeps } from '../admin/handle-teams.js';
import { InMemoryAdmissionGate } from '../admission/admission-gate.js';
import type { Config } from '../config/schema.js';
import type { ChatAnswer } from '../engine/chat-operation.js';
import type { EngineDeps } from '../engine/route-call.js';
import type { FallbackShare } from '../health/fallback-share.js';
import { InFlightLimit } from '../http/in-flight-limit.js';
import { InMemoryIdempotencyStore } from '../idempotency/idempotency-store.js';
import { KeyCache, KNOWN_KEY_REFRESH_INTERVAL_MS } from '../keys/key-cache.js';
import { KeyStore } from '../keys/key-store.js';
import { spentMicrosWithQueued } from '../ledger/spend-query.js';
import { SessionAffinity } from '../routing/session-affinity.js';
import { LocalSessionBindings } from '../routing/session-bindings.js';
import type { Endpoint } from '../serving/endpoint.js';
import { responsesEndpoint, type ParsedResponses } from '../serving/responses-endpoint.js';
import type { ServingDeps } from '../serving/serve-request.js';
import { RedisAdmissionGate } from '../state/redis-admission-gate.js';
import { RedisIdempotencyStore } from '../state/redis-idempotency-store.js';
import type { RedisLink } from '../state/redis-link.js';
import { RedisKeyChanges } from '../state/redis-key-changes.js';
import { RedisSessionBindings } from '../state/redis-session-bindings.js';
import { TeamCache } from '../teams/team-cache.js';
import { TeamStore } from '../teams/team-store.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { RequestSpans } from '../telemetry/request-spans.js';
import type { Storage } from './storage.js';

/** What serves callers: their keys, their admission, and the pipeline's dependencies. */
export interface Callers {
  serving: ServingDeps;
  /** `POST /v1/responses`, and every `response.create` on a WebSocket. */
  responses: Endpoint<ParsedResponses, ChatAnswer>;
  keys: KeyCache;
  /** What `/admin/keys` works on. */
  adminKeys: AdminKeysDeps;
  /** What `/admin/teams` works on. */
  adminTeams: AdminTeamsDeps;
  /** Stops re-reading the keys. */
  close(): void;
}

export interface CallersDeps {
  config: () => Config;
  engine: EngineDeps;
  storage: Storage;
  metrics: Metrics;
  logger: Logger;
  spans: RequestSpans | undefined;
  fallbackShare: FallbackShare;
  /** With Redis, admission, idempotency, revocations and session bindings are the fleet's. */
  link: RedisLink | undefined;
}

/** The callers' side, on this replica's memory or on the fleet's Redis. */
export function buildCallers(deps: CallersDeps): Callers {
  const { config, storage, metrics, link } = deps;
  const keyStore = new KeyStore({ db: storage.db, audit: storage.audit });
  const keys = new KeyCache({ store: keyStore, teams: new TeamCache(new TeamStore(storage.db)) });
  keys.startRefreshing(KNOWN_KEY_REFRESH_INTERVAL_MS);
  const ledgerSpentMicros = spentMicrosWithQueued(storage.ledger, storage.db);
  const admission = link ? new RedisAdmissionGate(link, { ledgerSpentMicros }) : new InMemoryAdmissionGate({ ledgerSpentMicros });
  const sessionBindings = new LocalSessionBindings({ onEvicted: () => metrics.affinityEvictions.inc() });
  const serving: ServingDeps = {
    config,
    engine: deps.engine,
    metrics,
    keys,
    idempotency: link ? new RedisIdempotencyStore(link) : new InMemoryIdempotencyStore(),
    affinity: new SessionAffinity(link ? new RedisSessionBindings(link, sessionBindings) : sessionBindings),
    admission,
    inFlight: new InFlightLimit(() => config().server.max_in_flight),
    logger: deps.logger,
    spans: deps.spans,
    fallbackShare: deps.fallbackShare,
    spendAccounting: storage.spendAccounting,
    records: storage.records,
  };
  const teams = new TeamStore(storage.db, { audit: storage.audit });
  const changes = link ? new RedisKeyChanges(link, keys) : keys;
  const adminKeys: AdminKeysDeps = {
    store: keyStore,
    teams,
    cache: changes,
    spentMicros: ledgerSpentMicros,
    reservedMicros: (keyId, teamId) => admission.reservedMicros(keyId, teamId),
  };
  // The gate counts a team's reservations under its id, as a key's under the key's.
  const adminTeams: AdminTeamsDeps = { teams, cache: changes, spentMicros: ledgerSpentMicros, reservedMicros: (teamId) => admission.reservedMicros(teamId) };
  const responses = responsesEndpoint({ stored: storage.storedResponses, retentionDays: () => config().responses.retention_days, logger: deps.logger });
  return { serving, responses, keys, adminKeys, adminTeams, close: () => keys.stopRefreshing() };
}
