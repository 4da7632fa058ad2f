import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN } from '../scenario-helpers.js';

let gateway: TestGateway;

// Two routes name claude-sonnet-4-5 on mock-anthropic: one as its first target, one as the
// fallback of gpt-4.1. The Bedrock target writes its model_change; the others leave it inferred.
beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
${MOCK_CONNECTIONS}
routes:
  gpt:
    targets:
      - { connection: mock-openai, model: gpt-4.1 }
      - { connection: mock-anthropic, model: claude-sonnet-4-5 }
  claude:
    targets:
      - { connection: mock-anthropic, model: claude-sonnet-4-5 }
      - { connection: mock-bedrock, model: anthropic.claude-sonnet-4-5-20250929-v1:0, model_change: true }
`);
});
afterAll(() => gateway.close());

it('GET /admin/health shows, per route naming a deployment, whether it is a model change there and whether that was inferred', async () => {
  expect((await deploymentHealth(gateway.url, 'mock-openai/gpt-4.1')).model_change).toEqual({ gpt: { value: false, inferred: true } });
  expect((await deploymentHealth(gateway.url, 'mock-anthropic/claude-sonnet-4-5')).model_change).toEqual({
    gpt: { value: true, inferred: true },
    claude: { value: false, inferred: true },
  });
  expect((await deploymentHealth(gateway.url, 'mock-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0')).model_change).toEqual({
    claude: { value: true, inferred: false },
  });
});
