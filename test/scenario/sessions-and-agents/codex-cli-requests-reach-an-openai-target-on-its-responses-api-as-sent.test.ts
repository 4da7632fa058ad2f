import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText, startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { CODEX_API_KEY, locateCodex, runCodex } from '../../support/codex-cli.js';
import { describeRun, type OfflineRun } from '../../support/offline-cli.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';

const ROUTE = 'codex-on-openai';
const RUN_TIMEOUT_MS = 60_000;
const install = locateCodex();
const inCi = process.env.CI === 'true';
if ('missing' in install && !inCi) {
  console.warn(`\n!!! SKIPPED codex-cli-requests-reach-an-openai-target: ${install.missing} (under CI=true this fails) !!!\n`);
}

// An OpenAI connection on a mock of its own, answering on its /v1/responses.
let upstream: MockProvider;
let gateway: TestGateway;

describe.skipIf('missing' in install && !inCi)('Codex CLI (codex exec) on an OpenAI target', () => {
  beforeAll(async () => {
    upstream = await startMockProvider();
    gateway = await startGateway(`
connections:
  openai-direct: { provider: openai, api_key: sk-test, base_url: "${upstream.url}/v1" }
routes:
  ${ROUTE}: { targets: [{ connection: openai-direct, model: gpt-behind-codex }] }
`);
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it(
    'its request reaches /v1/responses as Codex sent it, its tools and all, with the connection’s key',
    async () => {
      const run = await runCodex((install as { launcher: string }).launcher, { baseUrl: gateway.url, model: ROUTE, prompt: 'Say hello', timeoutMs: RUN_TIMEOUT_MS });
      expect(run.exitCode, describeCodexRun(run)).toBe(0);
      expect(run.stdout).toContain(mockAnswerText(8));
      expect(run.outsideConnections, describeCodexRun(run)).toEqual([]);

      const attempts = upstream.attemptsFor('gpt-behind-codex');
      expect(attempts.length).toBeGreaterThan(0);
      for (const attempt of attempts) {
        expect(attempt).toMatchObject({ dialect: 'openai-responses', path: '/v1/responses', stream: true, outcome: 'ok' });
        expect(attempt.headers.authorization).toBe('Bearer sk-test');
        expect(JSON.stringify(attempt.headers)).not.toContain(CODEX_API_KEY);
        const body = attempt.body as { model: string; tools?: unknown[] };
        expect(body.model).toBe('gpt-behind-codex');
        expect(JSON.stringify(body)).toContain('Say hello');
        // Codex declares its tools; a Responses target gets every one of them, whatever its type.
        expect(body.tools?.length ?? 0).toBeGreaterThan(0);
      }
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});

function describeCodexRun(run: OfflineRun): string {
  return describeRun(`codex ${'version' in install ? install.version : '?'} exec`, run, RUN_TIMEOUT_MS);
}
