import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createApp, type App } from '../../src/app.js';
import { checkCanaryPrompts } from '../../src/canaries/check-canary-prompts.js';
import { ConfigSource } from '../../src/config/config-source.js';
import { startMockProvider, type MockProvider, type MockProviderOptions } from '../../src/mock/mock-provider.js';

export interface TestGateway {
  url: string;
  app: App;
  /** The mock provider behind every `provider: mock` connection without a base_url, started here for the gateway. */
  mock: MockProvider;
  configSource: ConfigSource;
  configFile: string;
  /** Replaces the config file's text (the gateway reloads it when `watch` was asked for). */
  writeConfig(yaml: string): void;
  close(): Promise<void>;
}

/** A real gateway on an ephemeral loopback port, configured from YAML text, with a mock provider for it. */
export async function startGateway(
  yaml: string,
  options: { watch?: boolean; env?: NodeJS.ProcessEnv; logger?: Logger; mock?: MockProviderOptions } = {},
): Promise<TestGateway> {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-test-'));
  const configFile = join(directory, 'config.yaml');
  writeFileSync(configFile, withMemoryStore(yaml));
  const configSource = ConfigSource.load(configFile, { env: options.env ?? {}, fileChecks: [checkCanaryPrompts] });
  if (options.watch) configSource.watch();
  const mock = await startMockProvider(options.mock);
  const app = await createApp({ configSource, env: options.env ?? {}, mockUrl: () => mock.url, ...(options.logger ? { logger: options.logger } : {}) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    app,
    mock,
    configSource,
    configFile,
    writeConfig: (text) => writeFileSync(configFile, withMemoryStore(text)),
    async close() {
      await app.close();
      await mock.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Tests keep their records in memory, and run without virtual keys (the loopback quick-start
 * mode), unless they set `store` or `auth` themselves.
 */
function withMemoryStore(yaml: string): string {
  const store = /^store:/m.test(yaml) ? '' : 'store: { kind: sqlite, path: ":memory:" }\n';
  const auth = /^auth:/m.test(yaml) ? '' : 'auth: { mode: none }\n';
  return `${store}${auth}${yaml}`;
}

/** The mock connections most tests use: one per upstream wire format. */
export const MOCK_CONNECTIONS = `
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
  mock-gemini: { provider: mock, dialect: gemini }
  mock-bedrock: { provider: mock, dialect: bedrock }
`;

export async function postChat(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
}
