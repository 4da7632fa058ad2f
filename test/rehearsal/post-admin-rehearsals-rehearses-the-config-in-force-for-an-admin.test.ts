import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminCall, ADMIN_TOKEN, createToken } from '../support/admin-calls.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';
import { keysAuth } from '../support/virtual-keys.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  sturdy:
    targets:
      - { connection: mock-openai, model: gpt-sturdy }
      - { connection: mock-anthropic, model: claude-sturdy }
  alone: { retries: 0, targets: [{ connection: mock-gemini, model: gemini-alone }] }
`);
});
afterAll(() => gateway.close());

interface Answer {
  scenarios_total: number;
  failed: number;
  max_wait_s: number;
  scenarios: { route: string; position: number; fault: string; pass: boolean; verdicts: { goal: string; pass: boolean; advice?: string }[] }[];
}

it('answers an admin with the rehearsal of the config in force, as the command prints it, calling none of the gateway’s own mock', async () => {
  const answer = await adminCall(gateway.url, 'POST', '/admin/rehearsals', { body: { faults: ['server_error', 'credential'], max_wait_s: 5 } });
  expect(answer.status).toBe(200);
  const rehearsal = answer.body as unknown as Answer;
  expect(rehearsal).toMatchObject({ scenarios_total: 6, failed: 2, max_wait_s: 5 });
  expect(rehearsal.scenarios.map((scenario) => [scenario.route, scenario.position, scenario.fault, scenario.pass])).toEqual([
    ['sturdy', 0, 'server_error', true],
    ['sturdy', 0, 'credential', true],
    ['sturdy', 1, 'server_error', true],
    ['sturdy', 1, 'credential', true],
    ['alone', 0, 'server_error', false],
    ['alone', 0, 'credential', false],
  ]);
  expect(rehearsal.scenarios[4]!.verdicts[0]).toMatchObject({ goal: 'answered', pass: false, advice: 'add a fallback target, on another connection' });
  // Each scenario had a mock of its own: the gateway's own saw nothing.
  expect(gateway.mock.attempts).toHaveLength(0);
});

it('refuses a role other than admin, and names the field at fault in a bad body', async () => {
  const auditor = await createToken(gateway.url, { name: 'reader', role: 'auditor' });
  const refused = await adminCall(gateway.url, 'POST', '/admin/rehearsals', { token: auditor.token, body: {} });
  expect(refused.status).toBe(403);
  for (const [body, param] of [
    [{ faults: ['meteor'] }, 'faults.0'],
    [{ routes: ['nowhere'] }, 'routes'],
    [{ max_wait_s: 0 }, 'max_wait_s'],
    [{ route: 'sturdy' }, 'route'],
    [['sturdy'], 'body'],
  ] as const) {
    const bad = await adminCall(gateway.url, 'POST', '/admin/rehearsals', { body });
    expect(bad.status, JSON.stringify(body)).toBe(400);
    expect(bad.body.error?.param, JSON.stringify(body)).toBe(param);
  }
});
