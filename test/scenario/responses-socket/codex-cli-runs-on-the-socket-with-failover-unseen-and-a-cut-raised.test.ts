import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { locateCodex, runCodex } from '../../support/codex-cli.js';
import { describeRun } from '../../support/offline-cli.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

// Codex CLI on its built-in provider, given only the gateway's base URL, prefers the Responses
// WebSocket: it prepares the socket (`generate: false`), then runs each turn on it, continuing by
// previous_response_id with only the new items. Its default model is routed by the alias.
const RUN_TIMEOUT_MS = 90_000;
const install = locateCodex();
const inCi = process.env.CI === 'true';

let gateway: TestGateway;

describe.skipIf('missing' in install && !inCi)('Codex CLI on the Responses WebSocket', () => {
  beforeAll(async () => {
    gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  coding:
    aliases: ["gpt-*"]
    targets: [{ connection: mock-openai, model: "gpt-coding?tool_call=view_image" }]
  flaky-coding:
    aliases: ["flaky-*"]
    retries: 0
    targets:
      - { connection: mock-openai, model: "gpt-down?status=503" }
      - { connection: mock-anthropic, model: "claude-coding?tool_call=view_image" }
  cut-coding:
    aliases: ["cut-*"]
    retries: 0
    targets: [{ connection: mock-openai, model: "gpt-cut?cut_after=2" }]
`);
  });
  afterAll(() => gateway?.close());

  async function records() {
    await gateway.app.records.flush();
    return gateway.app.records.list({});
  }

  it(
    'runs a tool loop with every turn on the socket: no 426, no fallback to HTTP, every record websocket',
    async () => {
      if ('missing' in install) throw new Error(install.missing);
      const run = await runCodex(install.launcher, { baseUrl: gateway.url, prompt: 'Look at the diagram and describe it', timeoutMs: RUN_TIMEOUT_MS });
      expect(run.exitCode, describeRun('codex exec', run, RUN_TIMEOUT_MS)).toBe(0);
      expect(run.stdout).toContain(mockAnswerText(8));
      expect(run.outsideConnections).toEqual([]);
      // What Codex prints when the socket is refused (426) or given up for HTTPS.
      expect(run.stderr).not.toMatch(/\b426 Upgrade|Upgrade Required|failed to connect to Responses WebSocket|Falling back from WebSockets/i);
      const made = await records();
      expect(made.length).toBeGreaterThanOrEqual(2);
      for (const record of made) expect(record).toMatchObject({ transport: 'websocket', status: 'ok', route: 'coding' });
      // After the first, a turn sends only its new items: the conversation is the socket's.
      const turns = gateway.mock.attemptsFor('gpt-coding');
      expect(turns.length).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify(turns.at(-1)!.body)).toContain('Look at the diagram');
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  it(
    'does not see a primary that fails before the first content: the fallback serves every turn of the session',
    async () => {
      if ('missing' in install) throw new Error(install.missing);
      const before = (await records()).length;
      const run = await runCodex(install.launcher, { baseUrl: gateway.url, model: 'flaky-model', prompt: 'Look at the diagram and describe it', timeoutMs: RUN_TIMEOUT_MS, websocket: true });
      expect(run.exitCode, describeRun('codex exec', run, RUN_TIMEOUT_MS)).toBe(0);
      expect(run.stdout).toContain(mockAnswerText(8));
      const all = await records();
      const made = all.slice(0, all.length - before);
      expect(made.length).toBeGreaterThanOrEqual(2);
      for (const record of made) expect(record).toMatchObject({ transport: 'websocket', status: 'ok', served: { connection: 'mock-anthropic' } });
    },
    RUN_TIMEOUT_MS + 10_000,
  );

  it(
    'raises a stream cut after its first content as an error, and does not end the run as if answered',
    async () => {
      if ('missing' in install) throw new Error(install.missing);
      const before = (await records()).length;
      const run = await runCodex(install.launcher, { baseUrl: gateway.url, model: 'cut-model', prompt: 'Say something', timeoutMs: RUN_TIMEOUT_MS, websocket: true });
      expect(run.exitCode, describeRun('codex exec', run, RUN_TIMEOUT_MS)).not.toBe(0);
      expect(run.stderr).toContain('stream disconnected before completion: the upstream stream failed after it started');
      expect(run.stdout).not.toContain(mockAnswerText(8));
      // Every attempt of the run was cut, and the first was on the socket (after a failed socket
      // stream Codex tries HTTPS for the rest of its session: its own choice).
      const all = await records();
      const made = all.slice(0, all.length - before).reverse();
      expect(made.length).toBeGreaterThanOrEqual(1);
      expect(made[0]).toMatchObject({ transport: 'websocket', status: 'interrupted', error_code: 'stream_interrupted' });
      for (const record of made) expect(record).toMatchObject({ status: 'interrupted', error_code: 'stream_interrupted' });
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});
