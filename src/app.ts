import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { handleGetRequest, handleListRequests } from './admin/handle-requests.js';
import { authExposureProblem } from './config/check-auth-exposure.js';
import type { ConfigSource } from './config/config-source.js';
import { knownSecrets } from './config/known-secrets.js';
import type { Config } from './config/schema.js';
import { RetryBudgets } from './engine/retry-budget.js';
import type { EngineDeps } from './engine/run-route.js';
import { handleHealth } from './admin/handle-health.js';
import { CanaryRunner } from './canaries/canary-runner.js';
import { CanaryStore } from './canaries/canary-store.js';
import { handleListCanaries, handleResetCanaryBaseline, handleRunCanaries, type AdminCanariesDeps } from './admin/handle-canaries.js';
import { handleStats } from './admin/handle-stats.js';
import { handleCreateKey, handleKeySpend, handleListKeys, handleRevokeKey, type AdminKeysDeps } from './admin/handle-keys.js';
import { KeyCache, KNOWN_KEY_REFRESH_INTERVAL_MS } from './keys/key-cache.js';
import { LedgerWriter } from './ledger/ledger-writer.js';
import { SpendAccounting } from './ledger/spend-accounting.js';
import { spentMicros } from './ledger/spend-query.js';
import { KeyStore } from './keys/key-store.js';
import { chatOperation } from './engine/chat-operation.js';
import { Cancellation } from './core/cancellation.js';
import { runAttempt } from './engine/run-attempt.js';
import { LatencyTracker } from './routing/latency-tracker.js';
import { ConnectionLoad } from './health/connection-load.js';
import { FallbackShare } from './health/fallback-share.js';
import { HealthMonitor } from './health/health-monitor.js';
import { HealthRegistry, type HealthState } from './health/health-registry.js';
import { PROBE_EMBEDDINGS_REQUEST, PROBE_REQUEST } from './health/probe-request.js';
import { isEmbeddingModel } from './metering/embedding-models.js';
import { embeddingsOperation } from './engine/embeddings-operation.js';
import { PROBE_TIMEOUTS, runProbe, type ProbeDeps } from './health/run-probe.js';
import { AlertSender } from './telemetry/alert-sender.js';
import { Cooling } from './health/cooling.js';
import { LocalHealthDoor } from './health/local-health-door.js';
import { createHttpServer, type GatewayServer } from './http/create-server.js';
import { builtUiDirectory, redirectToUi, serveUi } from './http/serve-ui.js';
import type { GatewayResponse } from './http/gateway-response.js';
import { InFlightLimit } from './http/in-flight-limit.js';
import { newRequestId } from './http/request-id.js';
import { ANTHROPIC_MESSAGES } from './dialects/anthropic-messages/anthropic-messages.js';
import { OPENAI_RESPONSES } from './dialects/openai-responses/openai-responses.js';
import { OPENAI_CHAT } from './dialects/openai-chat/openai-chat.js';
import { InMemoryAdmissionGate } from './admission/admission-gate.js';
import { InMemoryIdempotencyStore } from './idempotency/idempotency-store.js';
import { handleCountTokens } from './http/handle-count-tokens.js';
import { refuseWebSocket } from './http/refuse-web-socket.js';
import { handleModel, handleModels } from './http/handle-models.js';
import { sendJson } from './http/send.js';
import { adapterFor, baseUrlFor } from './providers/registry.js';
import { DEFAULT_RECENT_LIMIT } from './records/recent-records.js';
import { RecordStore } from './records/record-store.js';
import { secretRedactor } from './records/redact-secrets.js';
import { migrate } from './store/migrate.js';
import { openStore } from './store/open-database.js';
import { openPostgresStore } from './store/postgres-store.js';
import { RecordPruner } from './store/record-pruner.js';
import { SqliteInserts } from './store/sqlite-inserts.js';
import { storeCall } from './store/store-call.js';
import { StoreThread } from './store/store-thread.js';
import { writesInThread, type StoreWrites } from './store/store-writes.js';
import type { DatabaseSchema } from './store/schema.js';
import { SpillFile } from './sinks/spill-file.js';
import { threadDialect } from './store/thread-dialect.js';
import type { SpendRow } from './core/spend-row.js';
import type { RequestRecord } from './core/request-record.js';
import { Kysely } from 'kysely';
import { Metrics } from './telemetry/metrics.js';
import { redactingLogger } from './telemetry/redacting-logger.js';
import { createRequestSpans } from './telemetry/request-spans.js';
import { Transport } from './transport/send-upstream.js';
import { chatEndpoint } from './serving/chat-endpoint.js';
import { responsesEndpoint } from './serving/responses-endpoint.js';
import { StoredResponses } from './conversations/stored-responses.js';
import { handleDeleteStoredResponse, handleGetStoredResponse } from './conversations/handle-stored-response.js';
import { EMBEDDINGS_ENDPOINT } from './serving/embeddings-endpoint.js';
import type { Endpoint } from './serving/endpoint.js';
import { keepGatewayRecord } from './serving/keep-gateway-record.js';
import { serveRequest, type ServingDeps } from './serving/serve-request.js';
import { upstreamPoolSizes } from './transport/upstream-pool-sizes.js';
import { RedisAdmissionGate } from './state/redis-admission-gate.js';
import { RedisIdempotencyStore } from './state/redis-idempotency-store.js';
import { RedisRevocations } from './state/redis-revocations.js';
import { awaitSharedState, openSharedState, type SharedState } from './state/shared-state.js';
import { SharedHealth } from './state/shared-health.js';
import { FleetRetryBuckets } from './state/fleet-retry-buckets.js';
import { FleetFallbackShare } from './state/fleet-fallback-share.js';
import { RedisRunLeases } from './state/redis-run-leases.js';
import { LOCAL_RUN_LEASES, type RunLeases } from './schedules/run-leases.js';
import { Schedule } from './schedules/schedule.js';
import type { GatewayRequestDeps } from './serving/run-gateway-request.js';
import { DrillRunner } from './drills/drill-runner.js';
import { LocalLatestDrillRun } from './drills/latest-drill-run.js';
import { RedisLatestDrillRun } from './state/redis-latest-drill-run.js';
import { LocalSessionBindings } from './routing/session-bindings.js';
import { SessionAffinity } from './routing/session-affinity.js';
import { RedisSessionBindings } from './state/redis-session-bindings.js';
import { handleLatestDrill, handleRunDrill } from './admin/handle-drills.js';

/** The SQLite file of a file store; undefined for an in-memory one (tests), which keeps refused writes in memory only. */
function sqliteFileOf(store: Config['store']): string | undefined {
  return store.kind === 'sqlite' && store.path !== ':memory:' ? store.path : undefined;
}

/** Where refused writes wait: beside an SQLite file, in `spill_dir` for PostgreSQL; in memory only for an in-memory store (tests). */
function spillPathOf(store: Config['store']): string | undefined {
  return store.kind === 'postgres' ? join(store.spill_dir, 'switchyard') : sqliteFileOf(store);
}

/**
 * Connections waiting to be accepted. Node's default (511) overflows when a fleet of agents
 * reconnects at once: 2,000 connections opened within a second overflowed it 1,700 times in the
 * streams bench, and each dropped handshake waits a TCP retry (1 s, 3 s, 7 s). The kernel caps
 * it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 4_096;

/**
 * The configured store. Every call to a file — queries, batched inserts, pruning — runs on a
 * thread of its own, so a locked or slow store never stalls the serving thread; this thread's
 * connection only migrates it at start. An in-memory database exists only on the connection
 * that opened it, so it stays here, bounded by `store.max_records`. PostgreSQL is asynchronous
 * already: a bounded pool, no thread (postgres-store.ts).
 */

export async function openConfiguredStore(store: Config['store'], logger: Logger): Promise<AppStore> {
  if (store.kind === 'postgres') return openPostgresStore(store, logger);
  const opened = openStore(store);
  await migrate(opened.db);
  const file = sqliteFileOf(store);
  if (file === undefined) {
    const maxRecords = store.kind === 'sqlite' ? store.max_records : undefined;
    return { db: opened.db, writes: writesInThread(new SqliteInserts(opened.sqlite, { maxRecords })) };
  }
  await opened.db.destroy();
  const thread = new StoreThread(file);
  await thread.ready();
  return { db: new Kysely<DatabaseSchema>({ dialect: threadDialect(thread) }), writes: thread };
}

/** Where the gateway keeps keys, records and spend: queries through `db`, background writes through `writes`. */
export interface AppStore {
  db: Kysely<DatabaseSchema>;
  writes: StoreWrites;
}

export interface AppOptions {
  configSource: ConfigSource;
  logger?: Logger;
  /** The store, already migrated, instead of the one the config names (tests make it fail on purpose). */
  store?: AppStore;
  /** Where `OTEL_*` settings are read (default: the process environment). */
  env?: NodeJS.ProcessEnv;
  /**
   * Where the in-process mock provider listens, for `provider: mock` connections without a
   * `base_url`; whoever runs the gateway starts it (the CLI, tests). Undefined while it is not running.
   */
  mockUrl?: () => string | undefined;
}

export interface App {
  server: GatewayServer;
  records: RecordStore;
  metrics: Metrics;
  /** Deletes records past `store.retention_days` in the background. */
  pruner: RecordPruner;
  /** Deletes stored Responses API answers past `responses.retention_days` in the background. */
  responsesPruner: RecordPruner;
  health: HealthState;
  monitor: HealthMonitor;
  alerts: AlertSender;
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /**
   * Stops accepting requests, lets those in flight finish for up to `drainMs` (default 0: cut
   * them, recorded as interrupted), writes every pending record, and releases everything.
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

/** The composition root: the only place that constructs modules and wires them together. */
export async function createApp(options: AppOptions): Promise<App> {
  const { configSource } = options;
  const config = () => configSource.current;
  // Every line the gateway logs is redacted of the config's secrets in force when it is written.
  const logger = redactingLogger(options.logger ?? pino({ level: 'silent' }), () => secretRedactor(knownSecrets(config())));

  const mockUrl = options.mockUrl ?? (() => undefined);
  configSource.subscribe((change) => {
    if (change.event === 'rejected') {
      logger.warn({ issues: change.issues }, 'config reload rejected; the previous config stays in force');
      return;
    }
    logger.info({ notes: change.notes }, 'config reloaded');
  });

  // The store is chosen at start; a reload that changes it takes effect on restart.
  const { db, writes } = options.store ?? (await openConfiguredStore(configSource.current.store, logger));
  const spans = createRequestSpans(options.env ?? process.env);
  const spillPath = spillPathOf(configSource.current.store);
  const ledger = new LedgerWriter({
    insert: (rows) => writes.spend(rows),
    onError: (error) => logger.error({ err: error }, 'writing spend rows failed; will retry'),
    ...(spillPath ? { spill: new SpillFile<SpendRow>(`${spillPath}.spill-spend.jsonl`) } : {}),
  });
  const storeConfig = configSource.current.store;
  const records = new RecordStore({
    db,
    // A `:memory:` store keeps at most max_records; the readable-before-written cache is no bigger.
    ...(storeConfig.kind === 'sqlite' && spillPath === undefined ? { recentLimit: Math.min(DEFAULT_RECENT_LIMIT, storeConfig.max_records) } : {}),
    knownSecrets: () => knownSecrets(config()),
    writer: {
      insert: (batch) => writes.records(batch),
      onError: (error) => logger.error({ err: error }, 'writing request records failed; will retry'),
      ...(spillPath ? { spill: new SpillFile<RequestRecord>(`${spillPath}.spill-records.jsonl`) } : {}),
    },
  });
  const metrics = new Metrics({ processMetrics: true });
  metrics.spillDepthOf = () => ({ records: records.writer.spilledCount, spend: ledger.spilledCount });
  metrics.droppedOf = () => ({ records: records.writer.droppedCount, spend: ledger.droppedCount });
  const pruner = new RecordPruner({
    prune: (pruneOptions) => writes.pruneRecords(pruneOptions),
    retentionDays: storeConfig.retention_days,
    onPruned: (count) => metrics.recordsPruned.inc(count),
    onError: (error) => logger.warn({ err: error }, 'pruning old request records failed; will retry'),
  });
  pruner.start();
  const storedResponses = new StoredResponses(db);
  const responsesPruner = new RecordPruner({
    prune: (pruneOptions) => storedResponses.prune(pruneOptions),
    retentionDays: configSource.current.responses.retention_days,
    onError: (error) => logger.warn({ err: error }, 'pruning old stored responses failed; will retry'),
  });
  responsesPruner.start();
  const spendAccounting = new SpendAccounting({ ledger, metrics });
  // Pools follow the config in force: a reload that changes a connection's max_in_flight resizes its origin's pool.
  let poolSizes: { config: Config; mockUrl: string | undefined; sizes: ReadonlyMap<string, number> } | undefined;
  const transport = new Transport({
    poolSizes() {
      const current = config();
      if (poolSizes?.config !== current || poolSizes.mockUrl !== mockUrl()) {
        // A connection with no usable base URL yet (the in-process mock still starting) sends nowhere.
        const baseUrlOf = (connection: Config['connections'][string]) => {
          try {
            return baseUrlFor(connection, mockUrl());
          } catch {
            return undefined;
          }
        };
        const sizes = upstreamPoolSizes(current.connections, baseUrlOf);
        poolSizes = { config: current, mockUrl: mockUrl(), sizes };
      }
      return poolSizes.sizes;
    },
  });
  const cooling = new Cooling();
  const alerts = new AlertSender(() => config().alerts.webhook_url, logger);
  // Like the store, the state backend is chosen at start.
  const shared: SharedState = openSharedState(configSource.current.state, {
    logger,
    alert: (alert) => alerts.send(alert),
    onDegraded: (degraded) => metrics.stateDegraded.set(degraded ? 1 : 0),
  });
  const fallbackShare = new FallbackShare();
  // With Redis, health, retry budgets and the fallback share are the fleet's; each replica still reads its own copy.
  const fleet = shared.link && { retryBuckets: new FleetRetryBuckets(shared.link), fallbackShare: new FleetFallbackShare(shared.link, fallbackShare) };
  const latency = new LatencyTracker();
  const monitor: HealthMonitor = new HealthMonitor({
    registry: (): HealthState => health,
    cooling,
    latency,
    fallbackShare,
    config,
    metrics,
    alert: (alert) => alerts.send(alert),
    probe: (deployment) => runProbe(deployment, probeDeps),
    ...(shared.link ? { probeLease: (deployment, leaseMs, purpose) => sharedHealth!.probeLease(deployment, leaseMs, purpose) } : {}),
  });
  const sharedHealth = shared.link && new SharedHealth({ link: shared.link, registry: () => health, cooling, events: monitor });
  const health: HealthRegistry = new HealthRegistry(sharedHealth ?? monitor, { config });
  const engine: EngineDeps = {
    health: new LocalHealthDoor({ registry: health, cooling, load: new ConnectionLoad(), latency, config, trials: sharedHealth }),
    transport,
    adapterFor: (target) => adapterFor(target.connection),
    baseUrlFor: (target) => baseUrlFor(target.connection, mockUrl()),
    retryBudgets: new RetryBudgets(Date.now, (route) => metrics.retryBudgetExhausted.inc({ route }), fleet?.retryBuckets),
  };
  const adminDeps = { adminToken: () => config().admin.token, records };
  const keyStore = new KeyStore({ db });
  const keyCache = new KeyCache({ store: keyStore });
  keyCache.startRefreshing(KNOWN_KEY_REFRESH_INTERVAL_MS);
  const ledgerSpentMicros = (keyId: string, sinceMs: number) =>
    // What is queued for the ledger counts too: write it first. If the store will not take it, the
    // stored sum would be short, so the answer is a 503 rather than a figure that is too low.
    storeCall(ledger.flush().then(() => spentMicros(db, { keyId, sinceMs })));
  const admission = shared.link ? new RedisAdmissionGate(shared.link, { ledgerSpentMicros }) : new InMemoryAdmissionGate({ ledgerSpentMicros });
  const inFlight = new InFlightLimit(() => config().server.max_in_flight);
  const sessionBindings = new LocalSessionBindings({ onEvicted: () => metrics.affinityEvictions.inc() });
  const servingDeps: ServingDeps = {
    config,
    engine,
    metrics,
    keys: keyCache,
    idempotency: shared.link ? new RedisIdempotencyStore(shared.link) : new InMemoryIdempotencyStore(),
    affinity: new SessionAffinity(shared.link ? new RedisSessionBindings(shared.link, sessionBindings) : sessionBindings),
    admission,
    inFlight,
    logger,
    spans,
    fallbackShare,
    spendAccounting,
    records,
  };
  const serve =
    <Parsed extends { requestedModel: string }, Answer>(endpoint: Endpoint<Parsed, Answer>) =>
    (request: IncomingMessage, response: GatewayResponse, requestId: string) =>
      serveRequest(request, response, requestId, endpoint, servingDeps);
  const keysDeps: AdminKeysDeps = {
    adminToken: () => config().admin.token,
    store: keyStore,
    cache: shared.link ? new RedisRevocations(shared.link, keyCache) : keyCache,
    spentMicros: ledgerSpentMicros,
    reservedMicros: (keyId) => admission.reservedMicros(keyId),
  };

  const probeDeps: ProbeDeps = {
    config,
    newRequestId,
    attempt({ target, requestStartedAtMs, deadlineAtMs }) {
      const input = {
        n: 1,
        target,
        adapter: adapterFor(target.connection),
        baseUrl: baseUrlFor(target.connection, mockUrl()),
        timeouts: PROBE_TIMEOUTS,
        caller: new Cancellation(),
        deadlineAtMs,
        requestStartedAtMs,
        transport,
      };
      // An embedding model refuses a chat, which would keep it faulted for good.
      return isEmbeddingModel(target.routedModel)
        ? runAttempt(input, embeddingsOperation(PROBE_EMBEDDINGS_REQUEST))
        : runAttempt(input, chatOperation(PROBE_REQUEST, 'first_token'));
    },
    keep(draft) {
      keepGatewayRecord(draft, config(), { spendAccounting, records, metrics, logger, spans });
    },
  };
  // The gateway's own traffic (drills, canaries) goes through the same engine, ledger and records.
  const gatewayRequests: GatewayRequestDeps = { config, engine, metrics, logger, spans, newRequestId, spendAccounting, records };
  const runLeases: RunLeases = shared.link ? new RedisRunLeases(shared.link) : LOCAL_RUN_LEASES;
  const schedules: Schedule[] = [];
  const canaryStore = new CanaryStore(db);
  const canaries = new CanaryRunner({
    config,
    configFile: configSource.file,
    gatewayRequests,
    store: canaryStore,
    metrics,
    alert: (alert) => alerts.send(alert),
    leases: runLeases,
    logger,
    schedules,
  });
  configSource.subscribe((change) => {
    if (change.event === 'reloaded') canaries.reloaded(change.config);
  });
  const canaryDeps: AdminCanariesDeps = { config, canaries, store: canaryStore };
  const drills = new DrillRunner({
    config,
    gatewayRequests,
    engineHealth: engine.health,
    registry: health,
    adapterFor: engine.adapterFor,
    latest: shared.link ? new RedisLatestDrillRun(shared.link) : new LocalLatestDrillRun(),
    leases: runLeases,
    alert: (alert) => alerts.send(alert),
    metrics,
    logger,
  });
  schedules.push(
    new Schedule({
      name: 'drill',
      intervalMs: () => config().drills.interval_s * 1000,
      leases: runLeases,
      run: (cancellation) => drills.runScheduled(cancellation),
      logger,
    }),
  );
  monitor.start();
  for (const schedule of schedules) schedule.start();
  await awaitSharedState(shared);

  const startedAtSeconds = Math.floor(Date.now() / 1000);
  const drillsDeps = { adminToken: () => config().admin.token, drills };
  const uiDirectory = builtUiDirectory();
  const server = createHttpServer(
    {
      'POST /v1/chat/completions': serve(chatEndpoint(OPENAI_CHAT)),
      'POST /v1/messages/count_tokens': (request, response) => handleCountTokens(request, response, { config: config(), keys: keyCache }),
      'POST /v1/messages': serve(chatEndpoint(ANTHROPIC_MESSAGES)),
      'POST /v1/embeddings': serve(EMBEDDINGS_ENDPOINT),
      'POST /v1/responses': serve(responsesEndpoint({ stored: storedResponses, retentionDays: () => config().responses.retention_days, logger })),
      'GET /v1/responses/:id': (request, response, _requestId, params) =>
        handleGetStoredResponse(request, response, params.id!, { config: config(), keys: keyCache, stored: storedResponses }),
      'DELETE /v1/responses/:id': (request, response, _requestId, params) =>
        handleDeleteStoredResponse(request, response, params.id!, { config: config(), keys: keyCache, stored: storedResponses }),
      'GET /v1/responses': refuseWebSocket,
      'GET /v1/models': (request, response) => handleModels(request, response, { config: config(), keys: keyCache, startedAtSeconds }),
      'GET /v1/models/:id': (request, response, _requestId, params) =>
        handleModel(request, response, params.id!, { config: config(), keys: keyCache, startedAtSeconds }),
      'GET /healthz': (_request, response) => void sendJson(response, 200, { status: 'ok' }),
      'GET /readyz': (_request, response) =>
        void sendJson(response, 200, { status: 'ready', routes: Object.keys(config().routes).length, state: shared.readiness() }),
      'GET /metrics': async (_request, response) => {
        const text = await metrics.registry.metrics();
        response.writeHead(200, { 'content-type': metrics.registry.contentType });
        response.end(text);
      },
      'GET /admin/requests': (request, response, _requestId, params) => handleListRequests(request, response, params, adminDeps),
      'GET /admin/health': (request, response) => handleHealth(request, response, { config, health, cooling, latency }),
      'GET /admin/canaries': (request, response, _requestId, params) => handleListCanaries(request, response, params, canaryDeps),
      'POST /admin/canaries': (request, response, _requestId, params) => handleRunCanaries(request, response, params, canaryDeps),
      'DELETE /admin/canaries/:route/baseline': (request, response, _requestId, params) => handleResetCanaryBaseline(request, response, params, canaryDeps),
      'GET /admin/stats': (request, response) =>
        handleStats(request, response, { adminToken: () => config().admin.token, db, flush: () => Promise.all([records.flush(), ledger.flush()]).then(() => undefined) }),
      'POST /admin/keys': (request, response, _requestId, params) => handleCreateKey(request, response, params, keysDeps),
      'GET /admin/keys': (request, response, _requestId, params) => handleListKeys(request, response, params, keysDeps),
      'DELETE /admin/keys/:id': (request, response, _requestId, params) => handleRevokeKey(request, response, params, keysDeps),
      'GET /admin/keys/:id/spend': (request, response, _requestId, params) => handleKeySpend(request, response, params, keysDeps),
      'GET /admin/requests/:id': (request, response, _requestId, params) => handleGetRequest(request, response, params, adminDeps),
      'POST /admin/drills': (request, response) => handleRunDrill(request, response, drillsDeps),
      'GET /admin/drills': (request, response) => handleLatestDrill(request, response, drillsDeps),
      'GET /ui': redirectToUi,
      'GET /ui/*': (request, response, _requestId, params) => serveUi(request, response, params.rest ?? '', uiDirectory),
    },
    logger,
    {
      dialectOf: (path) => (path.startsWith('/v1/messages') ? ANTHROPIC_MESSAGES : path.startsWith('/v1/responses') ? OPENAI_RESPONSES : OPENAI_CHAT),
      // Fixed at start, like the port: the listening socket is not made again on a reload.
      headersTimeoutMs: config().server.headers_timeout_ms,
    },
  );

  return {
    server,
    records,
    metrics,
    pruner,
    responsesPruner,
    async listen(listenOptions = {}) {
      const current = config();
      const host = listenOptions.host ?? current.server.host;
      const problem = authExposureProblem(current, host);
      if (problem) throw new Error(problem);
      // A reload may not open the gateway either.
      configSource.addCheck((next) => {
        const reloadProblem = authExposureProblem(next, host);
        return reloadProblem ? [{ path: 'auth.mode', message: reloadProblem }] : [];
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: listenOptions.port ?? current.server.port, host, backlog: LISTEN_BACKLOG }, () => resolve());
      });
      const address = server.address() as AddressInfo;
      return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    },
    health,
    monitor,
    alerts,
    async close(closeOptions = {}) {
      configSource.close();
      keyCache.stopRefreshing();
      await monitor.stop();
      // Canary runs asked for through the admin API end too (scheduled ones, with their schedules below).
      await canaries.stop();
      // A scheduled run in progress is cut short; its requests end, and are recorded, before the sinks close.
      await Promise.all(schedules.map((schedule) => schedule.stop()));
      // So is an asked-for drill: its POST then answers with the steps it ran.
      await drills.close();
      // Every request has finished, and added its record, before the sinks close.
      await server.drain(closeOptions.drainMs ?? 0);
      try {
        await alerts.flush();
        await spans?.shutdown();
        await pruner.stop();
        await responsesPruner.stop();
        await records.close();
        await ledger.close();
      } finally {
        await writes.close();
        await db.destroy();
        await transport.close();
        fleet?.retryBuckets.close();
        fleet?.fallbackShare.close();
        await shared.close();
      }
    },
  };
}
