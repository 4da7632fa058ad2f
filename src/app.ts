import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import type { ConfigSource } from './config/config-source.js';
import type { Config } from './config/schema.js';
import type { EngineDeps } from './engine/run-chat.js';
import { createHttpServer } from './http/create-server.js';
import { handleChatCompletions } from './http/handle-chat-completions.js';
import { handleModels } from './http/handle-models.js';
import { sendJson } from './http/send.js';
import { startMockProvider, type MockProvider } from './mock/mock-provider.js';
import { adapterFor, baseUrlFor } from './providers/registry.js';
import { Transport } from './transport/send-upstream.js';

export interface AppOptions {
  configSource: ConfigSource;
  logger?: Logger;
}

export interface App {
  server: Server;
  /** The in-process mock provider, when the config has a mock connection without a base_url. */
  readonly mock: MockProvider | undefined;
  listen(options?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
}

/** The composition root: the only place that constructs modules and wires them together. */
export async function createApp(options: AppOptions): Promise<App> {
  const { configSource } = options;
  const logger = options.logger ?? pino({ level: 'silent' });
  const transport = new Transport();
  let mock: MockProvider | undefined;
  const ensureMock = async (config: Config) => {
    const needsMock = Object.values(config.connections).some((connection) => connection.provider === 'mock' && connection.base_url === undefined);
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

  const engine: EngineDeps = {
    transport,
    adapterFor: (target) => adapterFor(target.connection),
    baseUrlFor: (target) => baseUrlFor(target.connection, mock?.url),
  };
  const config = () => configSource.current;
  const startedAtSeconds = Math.floor(Date.now() / 1000);

  const server = createHttpServer(
    {
      'POST /v1/chat/completions': (request, response, requestId) =>
        handleChatCompletions(request, response, requestId, { config, engine }),
      'GET /v1/models': (_request, response) => handleModels(response, config(), startedAtSeconds),
      'GET /healthz': (_request, response) => sendJson(response, 200, { status: 'ok' }),
      'GET /readyz': (_request, response) => sendJson(response, 200, { status: 'ready', routes: Object.keys(config().routes).length }),
    },
    logger,
  );

  return {
    server,
    get mock() {
      return mock;
    },
    async listen(listenOptions = {}) {
      const current = config();
      const host = listenOptions.host ?? current.server.host;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listenOptions.port ?? current.server.port, host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
    },
    async close() {
      configSource.close();
      server.closeIdleConnections();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await transport.close();
      await mock?.close();
    },
  };
}
