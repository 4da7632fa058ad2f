import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN } from '../scenario/scenario-helpers.js';
import { drill } from './drill-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
drills: { interval_s: 0, routes: ["public-*"] }
${MOCK_CONNECTIONS}
routes:
  public-chat: { targets: [{ connection: mock-openai, model: public-model }] }
  internal-chat: { targets: [{ connection: mock-openai, model: internal-model }] }
`);
});
afterAll(async () => {
  await gateway.close();
});

async function post(body: string, headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` }): Promise<{ status: number; error: Record<string, unknown> }> {
  const response = await fetch(`${gateway.url}/admin/drills`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(5_000),
  });
  return { status: response.status, error: ((await response.json()) as { error: Record<string, unknown> }).error };
}

it('refuses a bad body with a 400 naming the field, an unknown route with a 404 naming it, and no token with a 401', async () => {
  expect(await post('{"route": 7}')).toMatchObject({ status: 400, error: { param: 'route' } });
  expect(await post('{"routes": ["x"]}')).toMatchObject({ status: 400, error: { param: 'routes' } });
  expect(await post('[]')).toMatchObject({ status: 400, error: { param: 'body' } });
  expect(await post('{"route":')).toMatchObject({ status: 400, error: { code: 'invalid_json' } });
  const unknown = await post('{"route": "no-such-route"}');
  expect(unknown).toMatchObject({ status: 404, error: { param: 'route' } });
  expect(unknown.error.message).toContain('no-such-route');
  expect((await post('{}', {})).status).toBe(401);
  expect(gateway.mock.attempts).toHaveLength(0);
});

it('drills the routes drills.routes matches, and a named route even when it does not', async () => {
  const everything = await drill(gateway.url);
  expect(everything.steps.map((step) => step.route)).toEqual(['public-chat']);
  const named = await drill(gateway.url, 'internal-chat');
  expect(named.steps).toMatchObject([{ route: 'internal-chat', result: 'ok' }]);
});
