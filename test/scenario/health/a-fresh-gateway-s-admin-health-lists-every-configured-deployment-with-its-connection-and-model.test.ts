import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { adminHealth } from '../health-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

let gateway: TestGateway;

beforeAll(async () => {
  // A model name with a slash in it, and one deployment named by two routes; no request is sent.
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
  vllm: { provider: openai-compatible, base_url: "http://127.0.0.1:9/v1", api_key: local-key }
routes:
  support:
    targets:
      - { connection: mock-openai, model: primary }
      - { connection: vllm, model: meta-llama/Llama-3.1-8B-Instruct }
  batch:
    targets:
      - { connection: mock-anthropic, model: standby }
      - { connection: mock-openai, model: primary }
`);
});
afterAll(() => gateway.close());

it('a gateway that has sent nothing lists every configured deployment once, with its connection and model and every field', async () => {
  const data = await adminHealth(gateway.url);
  expect(data.map(({ deployment, connection, model }) => ({ deployment, connection, model }))).toEqual([
    { deployment: 'mock-anthropic/standby', connection: 'mock-anthropic', model: 'standby' },
    { deployment: 'mock-openai/primary', connection: 'mock-openai', model: 'primary' },
    { deployment: 'vllm/meta-llama/Llama-3.1-8B-Instruct', connection: 'vllm', model: 'meta-llama/Llama-3.1-8B-Instruct' },
  ]);
  for (const row of data) {
    const { deployment, connection, model, first_token, model_change, ...rest } = row;
    expect(rest, deployment).toEqual({
      state: 'healthy',
      since: null,
      reason: 'no traffic yet',
      structural_cause: null,
      ejected_until: null,
      consecutive_ejections: 0,
      last_tried_at: null,
      next_probe_at: null,
      cooling_until: null,
      cooling_cause: null,
      last_error: null,
      quota: null,
    });
    expect(first_token.samples, deployment).toBe(0);
    expect(Object.keys(model_change), deployment).not.toHaveLength(0);
    expect(`${connection}/${model}`).toBe(deployment);
  }
  expect(gateway.mock.attempts).toHaveLength(0);
});
