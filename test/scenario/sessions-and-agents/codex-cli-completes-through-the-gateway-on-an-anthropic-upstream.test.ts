import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { CODEX_API_KEY, locateCodex, runCodex } from '../../support/codex-cli.js';
import { describeRun, type OfflineRun } from '../../support/offline-cli.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

const ROUTE = 'codex-route';
const RUN_TIMEOUT_MS = 60_000;
const install = locateCodex();
const inCi = process.env.CI === 'true';
if ('missing' in install && !inCi) {
  console.warn(`\n!!! SKIPPED codex-cli-completes-through-the-gateway: ${install.missing} (under CI=true this fails) !!!\n`);
}

let gateway: TestGateway;

describe.skipIf('missing' in install && !inCi)('Codex CLI (codex exec) through the gateway', () => {
  beforeAll(async () => {
    gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  ${ROUTE}: { targets: [{ connection: mock-anthropic, model: claude-behind-codex }] }
`);
  });
  afterAll(() => gateway?.close());

  it(
    'completes on the Responses API against an Anthropic-dialect upstream',
    async () => {
      const startedAt = Date.now();
      const run = await runCodex((install as { launcher: string }).launcher, { baseUrl: gateway.url, model: ROUTE, prompt: 'Say hello', timeoutMs: RUN_TIMEOUT_MS });
      expect(run.exitCode, describeCodexRun(run)).toBe(0);
      expect(run.stdout).toContain(mockAnswerText(8));
      expect(run.outsideConnections, describeCodexRun(run)).toEqual([]);

      const attempts = gateway.mock.attemptsFor('claude-behind-codex');
      expect(attempts.length).toBeGreaterThan(0);
      for (const attempt of attempts) {
        expect(attempt).toMatchObject({ dialect: 'anthropic', path: '/v1/messages', stream: true, outcome: 'ok' });
        expect(JSON.stringify(attempt.body)).toContain('Say hello');
        expect(JSON.stringify(attempt.headers)).not.toContain(CODEX_API_KEY);
      }

      const response = await fetch(`${gateway.url}/admin/requests?since=${startedAt}&limit=100`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(5_000) });
      const records = ((await response.json()) as { data: RequestRecord[] }).data.filter((record) => record.route === ROUTE);
      expect(records.length).toBeGreaterThan(0);
      for (const record of records) expect(record).toMatchObject({ status: 'ok', operation: 'responses' });
    },
    RUN_TIMEOUT_MS + 10_000,
  );
});

function describeCodexRun(run: OfflineRun): string {
  return describeRun(`codex ${'version' in install ? install.version : '?'} exec`, run, RUN_TIMEOUT_MS);
}
