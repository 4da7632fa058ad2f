import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, hello } from '../scenario-helpers.js';

let gateway: TestGateway;

// A primary that three countable failures would eject, and a model_change standby that would
// then take everyone's traffic.
beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  chat:
    health: { consecutive_failures: 3 }
    targets:
      - { connection: mock-openai, model: primary }
      - { connection: mock-anthropic, model: standby, model_change: true }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

/** `levels` nested objects, `{"a":{"a":…{}}}`, as JSON text (the body is built as text: no recursion in the test either). */
function nestedJson(levels: number): string {
  return '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
}

interface ErrorBody {
  error: { code: string; param: string | null; message: string };
}

async function healthOf(deployment: string): Promise<{ state: string } | undefined> {
  const response = await fetch(`${gateway.url}/admin/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const body = (await response.json()) as { data: { deployment: string; state: string }[] };
  return body.data.find((entry) => entry.deployment === deployment);
}

describe('JSON nested deeper than 64 levels', () => {
  it('in a passthrough field, in tool parameters and in the Anthropic dialect: a 400 naming the path, no provider touched, the primary still healthy', async () => {
    const deep = nestedJson(10_000);
    const bodies = [
      { path: '/v1/chat/completions', text: `{"model":"chat","messages":${JSON.stringify(hello)},"x_extra":${deep}}`, param: /^x_extra(\.a){62}\.a$/ },
      {
        path: '/v1/chat/completions',
        text: `{"model":"chat","messages":${JSON.stringify(hello)},"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":${deep}}}}]}`,
        param: /^tools\[0\]\.function\.parameters\.properties(\.a)+$/,
      },
      { path: '/v1/messages', text: `{"model":"chat","max_tokens":5,"messages":${JSON.stringify(hello)},"metadata":${deep}}`, param: /^metadata(\.a)+$/ },
      { path: '/v1/chat/completions', text: `{"model":"chat","messages":${JSON.stringify(hello)},"x_extra":${deep}}`, param: /^x_extra/ },
    ];
    for (const body of bodies) {
      const response = await fetch(`${gateway.url}${body.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body.text });
      expect(response.status).toBe(400);
      const text = await response.text();
      const error = (JSON.parse(text) as ErrorBody).error;
      expect(error.code === 'invalid_request_error' || (error as { type?: string }).type === 'invalid_request_error').toBe(true);
      const param = error.param ?? /Invalid request: (\S+):/.exec(error.message)?.[1];
      expect(param).toMatch(body.param);
      expect(error.message).toContain('nested deeper than 64 levels');
    }
    expect(gateway.mock.attempts).toEqual([]);

    const served = await postChat(gateway.url, { model: 'chat', messages: hello });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-switchyard-served-by')).toBe('mock-openai/primary');
    expect((await healthOf('mock-openai/primary'))?.state).toBe('healthy');
    expect(gateway.mock.attemptsFor('standby')).toEqual([]);
  });

  it('a body nested exactly 64 levels deep is served, its passthrough field reaching the provider whole', async () => {
    // The body is level 1, so the field may hold 63 levels.
    const response = await postChat(gateway.url, `{"model":"chat","messages":${JSON.stringify(hello)},"x_extra":${nestedJson(63)}}`);
    expect(response.status).toBe(200);
    const [attempt] = gateway.mock.attemptsFor('primary');
    expect(JSON.stringify((attempt!.body as { x_extra?: unknown }).x_extra)).toBe(nestedJson(63));
  });
});
