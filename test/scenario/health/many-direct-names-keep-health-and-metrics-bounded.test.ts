import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, hello, metricsText } from '../scenario-helpers.js';

const MAX_DEPLOYMENTS = 5;
const NAMES = 30;

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
direct: { max_deployments: ${MAX_DEPLOYMENTS} }
${MOCK_CONNECTIONS}
routes:
  configured:
    targets: [{ connection: mock-openai, model: configured-model }]
`);
});
afterAll(() => gateway.close());

async function healthKeys(): Promise<string[]> {
  const response = await fetch(`${gateway.url}/admin/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(5_000) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { deployment: string }[] }).data.map((entry) => entry.deployment);
}

/** The distinct `deployment` label values of one metric. */
function deploymentLabels(text: string, metric: string): Set<string> {
  const labels = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const deployment = /deployment="([^"]*)"/.exec(line)?.[1];
    if (deployment !== undefined) labels.add(deployment);
  }
  return labels;
}

// Callers can make up any number of `connection/model` names. What the gateway keeps for the ones
// no route names — health entries and metric series — stays within direct.max_deployments.
it(`${NAMES} made-up direct names leave at most ${MAX_DEPLOYMENTS} of them in /admin/health and the state metric`, async () => {
  expect((await postChat(gateway.url, { model: 'configured', messages: hello })).status).toBe(200);
  for (let index = 0; index < NAMES; index++) {
    // Every name's model is missing upstream (404): a structural fault, counted per deployment.
    const response = await postChat(gateway.url, { model: `mock-openai/made-up-${index}?status=404`, messages: hello });
    expect(response.status).toBe(502);
    await response.text();
  }
  expect(gateway.mock.attempts.filter((attempt) => attempt.model.startsWith('made-up-'))).toHaveLength(NAMES);

  const expected = Array.from({ length: MAX_DEPLOYMENTS }, (_, index) => `mock-openai/made-up-${NAMES - MAX_DEPLOYMENTS + index}?status=404`);
  // The configured deployment stays; of the made-up ones, the most recent are remembered.
  expect((await healthKeys()).sort()).toEqual(['mock-openai/configured-model', ...expected].sort());

  const text = await metricsText(gateway.url);
  const madeUpStates = [...deploymentLabels(text, 'switchyard_deployment_state')].filter((label) => label.includes('made-up-'));
  expect(madeUpStates.sort()).toEqual([...expected].sort());
  // Counters outlive the registry's entries: past the bound, made-up names share `other`.
  const faultLabels = [...deploymentLabels(text, 'switchyard_structural_faults_total')];
  expect(faultLabels).toHaveLength(MAX_DEPLOYMENTS + 1);
  expect(faultLabels).toContain('other');
  expect(text).toMatch(new RegExp(`switchyard_structural_faults_total\\{deployment="other",cause="not_found"\\} ${NAMES - MAX_DEPLOYMENTS}\\b`));

  // A forgotten name is served afresh when it comes back.
  const again = await postChat(gateway.url, { model: 'mock-openai/made-up-0', messages: hello });
  expect(again.status).toBe(200);
  expect(await healthKeys()).toContain('mock-openai/made-up-0');
  expect(await healthKeys()).not.toContain(expected[0]);
});
