import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { ADMIN_TOKEN, eventually, hello, listRecords } from '../scenario-helpers.js';

// Two primaries that stay down; only the one on route `quiet` is left to its callers' trials.
const QUIET = 'quiet-primary?status=503';
const PROBED = 'probed-primary?status=503';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  main: { provider: mock, dialect: openai }
  spare: { provider: mock, dialect: anthropic }
routes:
  quiet:
    health: { recovery_probe_s: 0 }
    targets:
      - { connection: main, model: "${QUIET}" }
      - { connection: spare, model: fallback }
  probed:
    targets:
      - { connection: main, model: "${PROBED}" }
      - { connection: spare, model: fallback }
`);
});
afterAll(() => gateway.close());

/** Callers on the route until its primary is ejected, each answered by the fallback. */
async function eject(route: string, deployment: string): Promise<void> {
  for (let count = 0; count < 5 && (await deploymentHealth(gateway.url, deployment)).state !== 'ejected'; count++) {
    const response = await postChat(gateway.url, { model: route, messages: hello });
    await response.text();
    expect(response.headers.get('x-switchyard-served-by')).toBe('spare/fallback');
  }
  expect((await deploymentHealth(gateway.url, deployment)).state).toBe('ejected');
}

it('with recovery_probe_s: 0 an ejected deployment gets no probe, while one ejected after it on the default gets two', { timeout: 60_000 }, async () => {
  await eject('quiet', `main/${QUIET}`);
  const quietAttempts = gateway.mock.attemptsFor('quiet-primary').length;
  await eject('probed', `main/${PROBED}`);

  // The later ejection's probes come first: by its second, the quiet one's would have been due twice.
  await eventually(async () => (await listRecords(gateway.url, 'origin=probe')).length >= 2, 30_000, 'two probes of the default route');
  const probes = await listRecords(gateway.url, 'origin=probe');
  expect(new Set(probes.map((probe) => probe.model_requested))).toEqual(new Set([`main/${PROBED}`]));
  expect(gateway.mock.attemptsFor('quiet-primary')).toHaveLength(quietAttempts);
  expect((await deploymentHealth(gateway.url, `main/${QUIET}`)).state).toBe('ejected');
});
