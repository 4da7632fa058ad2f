import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

const DEPLOYMENT = 'mock-openai/only-target?status=503';

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  lonely:
    retries: 0
    health: { consecutive_failures: 3, eject_base_s: 30 }
    targets:
      - { connection: mock-openai, model: "only-target?status=503" }
`);
});
afterAll(() => gateway.close());

interface FinalErrorBody {
  error: { code: string; attempts: { target: string; kind: string; status: number | null }[] };
}

it('a failing only target is still tried on every request (never eject the last option), each answered 502', async () => {
  for (let n = 1; n <= 8; n++) {
    const response = await postChat(gateway.url, { model: 'lonely', messages: hello });
    const body = (await response.json()) as FinalErrorBody;
    expect(response.status, `request ${n}`).toBe(502);
    expect(body.error.code, `request ${n}`).toBe('upstream_error');
    // The caller sees the attempt that was made, even once the breaker has the target out.
    expect(body.error.attempts.map((attempt) => [attempt.target, attempt.kind, attempt.status]), `request ${n}`).toEqual([[DEPLOYMENT, 'server_error', 503]]);
    expect(gateway.mock.attemptsFor('only-target'), `request ${n}`).toHaveLength(n);
  }
  expect(gateway.mock.attemptsFor('only-target').every((attempt) => attempt.outcome === 'status 503')).toBe(true);

  // The breaker did trip (after 3 failures): the target was tried as the last option, not because it was healthy.
  expect((await deploymentHealth(gateway.url, DEPLOYMENT)).state).toBe('ejected');
});
