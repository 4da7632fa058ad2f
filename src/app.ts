import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { handleGetRequest, handleListRequests } from './admin/handle-requests.js';
import { authExposureProblem } from './config/check-auth-exposure.js';
import type { ConfigSource } from './config/config-source.js';
import { knownSecrets } from './config/known-secrets.js';
import type { Config } from './config/schema.js';
import { RetryBudgets } from './engine/retry-budget.js';
import type { EngineDeps } from './engine/run-route.js';
import { GatewayError } from './errors/gateway-error.js';
import { handleHealth } from './admin/handle-health.js';
import { handleCreateKey, handleKeySpend, handleListKeys, handleRevokeKey, type AdminKeysDeps } from './admin/handle-keys.js';
import { KeyCache } from './keys/key-cache.js';
import { LedgerWriter } from './ledger/ledger-writer.js';
import { SpendAccounting } from './ledger/spend-accounting.js';
import { spentMicros } from './ledger/spend-query.js';
import { KeyStore } from './keys/key-store.js';
import { CALLER_LEFT, Cancellation } from './core/cancellation.js';
import { chatOperation } from './engine/chat-operation.js';
import { runAttempt } from './engine/run-attempt.js';
import { LatencyTracker } from './routing/latency-tracker.js';
import { isPrimaryTarget } from './routing/plan-targets.js';
import { resolveRoute } from './routing/resolve-route.js';
import type { FailureKind } from './core/failure-kind.js';
import { ConnectionLoad } from './health/connection-load.js';
import { FallbackShare } from './health/fallback-share.js';
import { HealthMonitor } from './health/health-monitor.js';
import { HealthRegistry, type DeploymentHealth, type HealthState } from './health/health-registry.js';
import { PROBE_REQUEST } from './health/probe-request.js';
import { newRequestId } from './http/request-id.js';
import type { ResolvedTarget } from './routing/resolve-route.js';
import { AlertSender } from './telemetry/alert-sender.js';
import { Cooling } from './health/cooling.js';
import { LocalHealthDoor } from './health/local-health-door.js';
import { createHttpServer, type GatewayServer } from './http/create-server.js';
import type { GatewayResponse } from './http/gateway-response.js';
import { InFlightLimit } from './http/in-flight-limit.js';
import { handleChat, type ChatHandlerDeps } from './http/handle-chat.js';
import { handleEmbeddings } from './http/handle-embeddings.js';
import { ANTHROPIC_MESSAGES } from './dialects/anthropic-messages/anthropic-messages.js';
import { OPENAI_CHAT } from './dialects/openai-chat/openai-chat.js';
import { InMemoryBudgetGate } from './admission/budget-gate.js';
import { InMemoryRateLimiter } from './admission/rate-limiter.js';
import { InMemoryIdempotencyStore } from './idempotency/idempotency-store.js';
import { handleCountTokens } from './http/handle-count-tokens.js';
import { handleModel, handleModels } from './http/handle-models.js';
import { sendJson } from './http/send.js';
import { startMockProvider, type MockProvider } from './mock/mock-provider.js';
import { adapterFor, baseUrlFor } from './providers/registry.js';
import { DEFAULT_RECENT_LIMIT } from './records/recent-records.js';
import { RecordStore } from './records/record-store.js';
import { secretRedactor } from './records/redact-secrets.js';
import { RecordDraft } from './records/record-draft.js';
import { migrate } from './store/migrate.js';
import { openStore } from './store/open-database.js';
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
import { logRequest } from './telemetry/log-request.js';
import { observeRequest } from './telemetry/observe-request.js';
import { redactingLogger } from './telemetry/redacting-logger.js';
import { createRequestSpans } from './telemetry/request-spans.js';
import { Transport } from './transport/send-upstream.js';
import { upstreamPoolSizes } from './transport/upstream-pool-sizes.js';

/** The SQLite file of a file store; undefined for an in-memory one (tests), which keeps refused writes in memory only. */
function sqliteFileOf(store: Config['store']): string | undefined {
  return store.kind === 'sqlite' && store.path !== ':memory:' ? store.path : undefined;
}

/**
 * The configured store. Every call to a file — queries, batched inserts, pruning — runs on a
 * thread of its own, so a locked or slow store never stalls the serving thread; this thread's
 * connection only migrates it at start. An in-memory database exists only on the connection
 * that opened it, so it stays here, bounded by `store.max_records`.
 */
async function openConfiguredStore(store: Config['store']): Promise<AppStore> {
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

/** A probe gets a short leash: it exists to find out, not to wait. */
const PROBE_TIMEOUTS = { connect_ms: 3_000, first_token_ms: 15_000, idle_ms: 15_000, total_ms: 20_000, heartbeat_ms: 20_000 };

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
}

export interface App {
  server: GatewayServer;
  /** The in-process mock provider, when the config has a mock connection without a base_url. */
  readonly mock: MockProvider | undefined;
  records: RecordStore;
  metrics: Metrics;
  /** Deletes records past `store.retention_days` in the background. */
  pruner: RecordPruner;
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

  let mock: MockProvider | undefined;
  const ensureMock = async (current: Config) => {
    const needsMock = Object.values(current.connections).some((connection) => connection.provider === 'mock' && connection.base_url === undefined);
    if (needsMock && !mock) mock = await startMockProvider();
  };
  await ensureMock(configSource.current);
  configSource.subscribe((change) => {
    if (change.event === 'rejected') {
      logger.warn({ issues: change.issues }, 'config reload rejected; the previous config stays in force');
      return;
    }
    logger.info({ notes: change.notes }, 'config reloaded');
    // A reload may add the first in-process mock connection.
    ensureMock(change.config).catch((error: unknown) => logger.error({ err: error }, 'could not start the in-process mock'));
  });

  // The store is chosen at start; a reload that changes it takes effect on restart.
  const { db, writes } = options.store ?? (await openConfiguredStore(configSource.current.store));
  const spans = createRequestSpans(options.env ?? process.env);
  // Refused writes wait beside the store file.
  const spillPath = sqliteFileOf(configSource.current.store);
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
  const pruner = new RecordPruner({
    prune: (pruneOptions) => writes.pruneRecords(pruneOptions),
    retentionDays: storeConfig.retention_days,
    onPruned: (count) => metrics.recordsPruned.inc(count),
    onError: (error) => logger.warn({ err: error }, 'pruning old request records failed; will retry'),
  });
  pruner.start();
  const spendAccounting = new SpendAccounting({ ledger, metrics, config });
  // Pools follow the config in force: a reload that changes a connection's max_in_flight resizes its origin's pool.
  let poolSizes: { config: Config; mockUrl: string | undefined; sizes: ReadonlyMap<string, number> } | undefined;
  const transport = new Transport({
    poolSizes() {
      const current = config();
      if (poolSizes?.config !== current || poolSizes.mockUrl !== mock?.url) {
        // A connection with no usable base URL yet (the in-process mock still starting) sends nowhere.
        const baseUrlOf = (connection: Config['connections'][string]) => {
          try {
            return baseUrlFor(connection, mock?.url);
          } catch {
            return undefined;
          }
        };
        const sizes = upstreamPoolSizes(current.connections, baseUrlOf);
        poolSizes = { config: current, mockUrl: mock?.url, sizes };
      }
      return poolSizes.sizes;
    },
  });
  const cooling = new Cooling();
  const alerts = new AlertSender(() => config().alerts.webhook_url, logger);
  const fallbackShare = new FallbackShare();
  const latency = new LatencyTracker();
  const monitor: HealthMonitor = new HealthMonitor({
    registry: (): HealthState => health,
    cooling,
    latency,
    fallbackShare,
    config,
    metrics,
    alert: (alert) => alerts.send(alert),
    probe: (deployment) => runProbe(deployment),
  });
  const health: HealthRegistry = new HealthRegistry(monitor, { config });
  const engine: EngineDeps = {
    health: new LocalHealthDoor({ registry: health, cooling, load: new ConnectionLoad(), latency, config }),
    transport,
    adapterFor: (target) => adapterFor(target.connection),
    baseUrlFor: (target) => baseUrlFor(target.connection, mock?.url),
    retryBudgets: new RetryBudgets(Date.now, (route) => metrics.retryBudgetExhausted.inc({ route })),
  };
  const adminDeps = { adminToken: () => config().admin.token, records };
  const keyStore = new KeyStore({ db });
  const keyCache = new KeyCache({ store: keyStore });
  const ledgerSpentMicros = (keyId: string, sinceMs: number) =>
    // What is queued for the ledger counts too: write it first. If the store will not take it, the
    // stored sum would be short, so the answer is a 503 rather than a figure that is too low.
    storeCall(ledger.flush().then(() => spentMicros(db, { keyId, sinceMs })));
  const budgetGate = new InMemoryBudgetGate();
  const inFlight = new InFlightLimit(() => config().server.max_in_flight);
  const chatDeps: ChatHandlerDeps = {
    dialect: OPENAI_CHAT,
    config,
    engine,
    metrics,
    keys: keyCache,
    idempotency: new InMemoryIdempotencyStore(),
    rateLimiter: new InMemoryRateLimiter(),
    budgetGate,
    ledgerSpentMicros,
    inFlight,
  };
  const messagesDeps: ChatHandlerDeps = { ...chatDeps, dialect: ANTHROPIC_MESSAGES };
  const keysDeps: AdminKeysDeps = {
    adminToken: () => config().admin.token,
    store: keyStore,
    cache: keyCache,
    spentMicros: ledgerSpentMicros,
    reservedMicros: (keyId) => budgetGate.reservedMicros(keyId),
  };

  /** One active probe (docs/health.md), kept as a record of its own, marked as a probe. */
  const runProbe = async (deployment: DeploymentHealth): Promise<FailureKind> => {
    const connection = config().connections[deployment.connection];
    // A connection a reload removed cannot recover: leave it faulted, it is no longer routed to.
    if (!connection) return 'not_found';
    const target: ResolvedTarget = {
      connectionName: deployment.connection,
      connection,
      routedModel: deployment.model,
      modelChange: false,
      config: { connection: deployment.connection, model: deployment.model, model_change: false, weight: 1, priority: 0 },
    };
    const trace = new RecordDraft(newRequestId(), Date.now());
    trace.probe = true;
    trace.modelRequested = deployment.key;
    const outcome = await runAttempt(
      {
        n: 1,
        target,
        adapter: adapterFor(connection),
        baseUrl: baseUrlFor(connection, mock?.url),
        timeouts: PROBE_TIMEOUTS,
        caller: new Cancellation(),
        deadlineAtMs: trace.startedAtMs + PROBE_TIMEOUTS.total_ms,
        requestStartedAtMs: trace.startedAtMs,
        transport,
      },
      chatOperation(PROBE_REQUEST, 'first_token'),
    );
    trace.attempts = [outcome.record];
    if (outcome.ok) trace.served = target;
    else trace.fail('failed', outcome.record.httpStatus ?? 502, outcome.error.kind);
    records.add(trace.toRecord(Date.now(), spendAccounting.account(trace)));
    return outcome.record.kind;
  };
  monitor.start();

  /**
   * Runs a traced handler: whatever happens, the request ends up as one record and in the
   * metrics. A caller that left before its body was whole is `cancelled`; a request whose
   * connection a shutdown cut is `interrupted`.
   */
  const traced =
    (handler: (request: IncomingMessage, response: ServerResponse, trace: RecordDraft) => Promise<void>) =>
    async (request: IncomingMessage, response: GatewayResponse, requestId: string) => {
      const trace = new RecordDraft(requestId, Date.now());
      try {
        await handler(request, response, trace);
      } catch (error) {
        if (error === CALLER_LEFT) trace.fail('cancelled', 499, 'cancelled');
        else if (error instanceof GatewayError) {
          trace.fail('rejected', error.status, error.code, error.message);
          if (error.code === 'budget_exceeded') metrics.budgetRefusals.inc();
          if (error.code === 'rate_limit_exceeded') metrics.limitRefusals.inc({ limit: error.type });
        }
        else trace.fail('failed', 500, 'internal_error');
        throw error;
      } finally {
        inFlight.leave(request);
        // No status line reached a caller cut before its answer began: 503 is what it would have said.
        if (response.cutAtShutdown) trace.fail('interrupted', response.headersSent ? response.statusCode : 503, 'shutdown');
        const record = trace.toRecord(Date.now(), spendAccounting.account(trace));
        records.add(record);
        logRequest(logger, record, () => knownSecrets(config()));
        spans?.export(record);
        if (trace.replayed) metrics.idempotentReplays.inc();
        if (trace.served && trace.route !== null) {
          // Named routes only: direct connection/model requests have no fallback (and unbounded names).
          const route = config().routes[trace.route];
          if (route) {
            const { targets } = resolveRoute(config(), trace.route);
            fallbackShare.record(trace.route, !isPrimaryTarget(targets, route.strategy, trace.served), Date.now());
          }
        }
        observeRequest(metrics, record, {
          routeLabel: trace.routeLabel,
          malformedEvents: trace.attempts.reduce((sum, attempt) => sum + attempt.malformedEvents, 0),
        });
      }
    };

  const startedAtSeconds = Math.floor(Date.now() / 1000);
  const server = createHttpServer(
    {
      'POST /v1/chat/completions': traced((request, response, trace) => handleChat(request, response, trace, chatDeps)),
      'POST /v1/messages/count_tokens': (request, response) => handleCountTokens(request, response, { config: config(), keys: keyCache }),
      'POST /v1/messages': traced((request, response, trace) => handleChat(request, response, trace, messagesDeps)),
      'POST /v1/embeddings': traced((request, response, trace) => handleEmbeddings(request, response, trace, chatDeps)),
      'GET /v1/models': (request, response) => handleModels(request, response, { config: config(), keys: keyCache, startedAtSeconds }),
      'GET /v1/models/:id': (request, response, _requestId, params) =>
        handleModel(request, response, params.id!, { config: config(), keys: keyCache, startedAtSeconds }),
      'GET /healthz': (_request, response) => void sendJson(response, 200, { status: 'ok' }),
      'GET /readyz': (_request, response) => void sendJson(response, 200, { status: 'ready', routes: Object.keys(config().routes).length }),
      'GET /metrics': async (_request, response) => {
        const text = await metrics.registry.metrics();
        response.writeHead(200, { 'content-type': metrics.registry.contentType });
        response.end(text);
      },
      'GET /admin/requests': (request, response, _requestId, params) => handleListRequests(request, response, params, adminDeps),
      'GET /admin/health': (request, response) => handleHealth(request, response, { config, health, cooling }),
      'POST /admin/keys': (request, response, _requestId, params) => handleCreateKey(request, response, params, keysDeps),
      'GET /admin/keys': (request, response, _requestId, params) => handleListKeys(request, response, params, keysDeps),
      'DELETE /admin/keys/:id': (request, response, _requestId, params) => handleRevokeKey(request, response, params, keysDeps),
      'GET /admin/keys/:id/spend': (request, response, _requestId, params) => handleKeySpend(request, response, params, keysDeps),
      'GET /admin/requests/:id': (request, response, _requestId, params) => handleGetRequest(request, response, params, adminDeps),
    },
    logger,
    { dialectOf: (path) => (path.startsWith('/v1/messages') ? ANTHROPIC_MESSAGES : OPENAI_CHAT) },
  );

  return {
    server,
    get mock() {
      return mock;
    },
    records,
    metrics,
    pruner,
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
        server.listen(listenOptions.port ?? current.server.port, host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    },
    health,
    monitor,
    alerts,
    async close(closeOptions = {}) {
      configSource.close();
      await monitor.stop();
      // Every request has finished, and added its record, before the sinks close.
      await server.drain(closeOptions.drainMs ?? 0);
      try {
        await alerts.flush();
        await spans?.shutdown();
        await pruner.stop();
        await records.close();
        await ledger.close();
      } finally {
        await writes.close();
        await db.destroy();
        await transport.close();
        await mock?.close();
      }
    },
  };
}
