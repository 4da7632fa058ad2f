import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import type { AdminAccessDeps } from './access/admin-access.js';
import { auditConfigReloads } from './audit/audit-config-reloads.js';
import { authExposureProblem } from './config/check-auth-exposure.js';
import { ConfigSource } from './config/config-source.js';
import { knownSecrets } from './config/known-secrets.js';
import { dialectOfPath } from './dialects/dialect-of-path.js';
import { GoogleAccessTokens } from './credentials/google-access-tokens.js';
import { RetryBudgets } from './engine/retry-budget.js';
import type { EngineDeps } from './engine/route-call.js';
import type { HealthState } from './health/health-registry.js';
import type { HealthMonitor } from './health/health-monitor.js';
import { runProbe } from './health/run-probe.js';
import { createHttpServer, type GatewayServer } from './http/create-server.js';
import { newRequestId } from './http/request-id.js';
import { adapterFor, baseUrlFor } from './providers/registry.js';
import type { RecordStore } from './records/record-store.js';
import { secretRedactor } from './records/redact-secrets.js';
import { runRehearsal, type RehearsalOptions } from './rehearsal/run-rehearsal.js';
import type { StartScenarioGateway } from './rehearsal/run-scenario.js';
import { ResponsesSockets } from './responses-socket/responses-sockets.js';
import { gatewayProbe } from './serving/gateway-probe.js';
import type { GatewayRequestDeps } from './serving/run-gateway-request.js';
import { awaitSharedState, openSharedState } from './state/shared-state.js';
import type { AppStore } from './store/open-configured-store.js';
import type { RecordPruner } from './store/record-pruner.js';
import { storeCall } from './store/store-call.js';
import { TeamStore } from './teams/team-store.js';
import { AlertSender, type Alert } from './telemetry/alert-sender.js';
import { Metrics } from './telemetry/metrics.js';
import { redactingLogger } from './telemetry/redacting-logger.js';
import { createRequestSpans } from './telemetry/request-spans.js';
import { AdminTokenStore } from './tokens/admin-token-store.js';
import { Transport } from './transport/send-upstream.js';
import { poolSizesFollowingConfig } from './transport/upstream-pool-sizes.js';
import { buildCallers } from './wiring/callers.js';
import { buildHealth } from './wiring/health.js';
import { routeTable } from './wiring/route-table.js';
import { startRuns } from './wiring/runs.js';
import { buildSignIn } from './wiring/sign-in.js';
import { openStorage } from './wiring/storage.js';

/**
 * Connections waiting to be accepted. Node's default (511) overflows when a fleet of agents
 * reconnects at once: 2,000 connections opened within a second overflowed it 1,700 times in the
 * streams bench, and each dropped handshake waits a TCP retry (1 s, 3 s, 7 s). The kernel caps
 * it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 4_096;

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
  /** Every route the gateway answers, as `METHOD /path` (the role matrix test walks the admin ones). */
  routeKeys: readonly string[];
  records: RecordStore;
  metrics: Metrics;
  /** Deletes records past `store.retention_days` in the background. */
  pruner: RecordPruner;
  /** Deletes stored Responses API answers past `responses.retention_days` in the background. */
  responsesPruner: RecordPruner;
  /** Deletes the oldest audit rows past `audit.retention_days` in the background. */
  auditPruner: RecordPruner;
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

/**
 * The composition root: the only place that constructs the gateway's parts and wires them
 * together. Each part is built by a module of its own (src/wiring/); the store and the state
 * backend are chosen at start, and a reload that changes them takes effect on restart.
 */
export async function createApp(options: AppOptions): Promise<App> {
  const { configSource } = options;
  const config = () => configSource.current;
  const logger = gatewayLogger(options);
  const mockUrl = options.mockUrl ?? (() => undefined);
  // The writers whose counts the metrics report are made just below; a scrape reads them later.
  const metrics = new Metrics({ processMetrics: true, sinks: { spilled: () => storage.sinkCounts.spilled(), dropped: () => storage.sinkCounts.dropped() } });
  const storage = await openStorage({ config, logger, metrics, ...(options.store ? { store: options.store } : {}) });
  auditConfigReloads(configSource, storage.audit);
  const spans = createRequestSpans(options.env ?? process.env);
  const alerts = new AlertSender(() => config().alerts.webhook_url, logger);
  // Read at each alert, not bound once: tests listen to what is sent by replacing `app.alerts.send`.
  const alert = (sent: Alert) => alerts.send(sent);
  const shared = await openSharedState(config().state, { logger, alert, onDegraded: (degraded) => metrics.stateDegraded.set(degraded ? 1 : 0) });
  const transport = new Transport({ poolSizes: poolSizesFollowingConfig(config, mockUrl) });
  const health = buildHealth({ config, metrics, alert, link: shared.link, probe: (deployment) => runProbe(deployment, probe) });
  const accessTokens = new GoogleAccessTokens();
  const engine: EngineDeps = {
    health: health.door,
    transport,
    accessTokens,
    adapterFor: (target) => adapterFor(target.connection, target.routedModel),
    baseUrlFor: (target) => baseUrlFor(target.connection, mockUrl()),
    retryBudgets: new RetryBudgets(Date.now, (route) => metrics.retryBudgetExhausted.inc({ route }), health.retryBuckets),
  };
  const { spendAccounting, records } = storage;
  const gatewayRequests: GatewayRequestDeps = { config, engine, metrics, logger, spans, newRequestId, spendAccounting, records };
  const probe = gatewayProbe(gatewayRequests);
  const callers = buildCallers({ config, engine, storage, metrics, logger, spans, fallbackShare: health.fallbackShare, link: shared.link });
  health.monitor.start();
  const runs = startRuns({ configSource, gatewayRequests, storage, registry: health.registry, metrics, alert, logger, link: shared.link });
  await awaitSharedState(shared);
  const tokens = new AdminTokenStore({ db: storage.db, audit: storage.audit });
  const signIn = buildSignIn({ config, storage, logger });
  const access: AdminAccessDeps = { adminToken: () => config().admin.token, tokenActor: (secret) => storeCall(tokens.actorFor(secret)), ...signIn.access };
  const adminTokens = { tokens, teams: new TeamStore(storage.db) };
  const rehearsals = { rehearse: (asked: RehearsalOptions) => runRehearsal(config(), asked, startScenarioGateway) };
  const routes = routeTable({ access, adminTokens, signIn: signIn.handlers, config, logger, metrics, storage, callers, health, runs, rehearsals, readiness: () => shared.readiness() });
  // Fixed at start, like the port: the listening socket is not made again on a reload.
  const server = createHttpServer(routes, logger, { dialectOf: dialectOfPath, headersTimeoutMs: config().server.headers_timeout_ms });
  const sockets = new ResponsesSockets({ config, keys: callers.keys, serving: callers.serving, endpoint: callers.responses, logger });
  sockets.attach(server);

  return {
    server,
    routeKeys: Object.keys(routes),
    records,
    metrics,
    pruner: storage.pruner,
    responsesPruner: storage.responsesPruner,
    auditPruner: storage.auditPruner,
    health: health.registry,
    monitor: health.monitor,
    alerts,
    listen: (listenOptions = {}) => listen(server, configSource, listenOptions),
    async close(closeOptions = {}) {
      configSource.close();
      callers.close();
      await health.monitor.stop();
      await runs.close();
      // Every request has finished, and added its record, before the sinks close.
      await Promise.all([server.drain(closeOptions.drainMs ?? 0), sockets.drain(closeOptions.drainMs ?? 0)]);
      try {
        await alerts.flush();
        await spans?.shutdown();
      } finally {
        try {
          await storage.close();
        } finally {
          await transport.close();
          accessTokens.close();
          health.close();
          await shared.close();
        }
      }
    },
  };
}

/** Every line the gateway logs is redacted of the config's secrets in force when it is written; reloads are logged. */
function gatewayLogger(options: AppOptions): Logger {
  const { configSource } = options;
  const logger = redactingLogger(options.logger ?? pino({ level: 'silent' }), () => secretRedactor(knownSecrets(configSource.current)));
  configSource.subscribe((change) => {
    if (change.event === 'rejected') {
      logger.warn({ issues: change.issues }, 'config reload rejected; the previous config stays in force');
      return;
    }
    logger.info({ notes: change.notes }, 'config reloaded');
  });
  return logger;
}

/** Listens where asked (else where the config says), refusing a host the auth mode would leave open, now and on every reload. */
async function listen(server: GatewayServer, configSource: ConfigSource, options: { port?: number; host?: string }): Promise<string> {
  const current = configSource.current;
  const host = options.host ?? current.server.host;
  const problem = authExposureProblem(current, host);
  if (problem) throw new Error(problem);
  // A reload may not open the gateway either.
  configSource.addCheck((next) => {
    const reloadProblem = authExposureProblem(next, host);
    return reloadProblem ? [{ path: 'auth.mode', message: reloadProblem }] : [];
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? current.server.port, host, backlog: LISTEN_BACKLOG }, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/**
 * A rehearsal scenario's gateway (rehearsal/): the whole gateway on the scenario's config file,
 * its mock connections served by the scenario's mock, on a loopback port of its own.
 */
export const startScenarioGateway: StartScenarioGateway = async (configFile, mockUrl) => {
  const app = await createApp({ configSource: ConfigSource.load(configFile, { env: {} }), env: {}, mockUrl: () => mockUrl });
  return { url: await app.listen({ port: 0, host: '127.0.0.1' }), records: app.records, close: () => app.close() };
};
