import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { deploymentHealth, startAlertWebhook, type AlertWebhook } from '../scenario/health-helpers.js';
import { ADMIN_TOKEN, eventually, hello, metricsText, metricValue } from '../scenario/scenario-helpers.js';
import { latestDrill } from './drill-helpers.js';

const EXPIRED_KEY = 'sk-standby-expired-last-month';
let gateway: TestGateway;
let webhook: AlertWebhook;

const config = (intervalS: number) => `
admin: { token: ${ADMIN_TOKEN} }
alerts: { webhook_url: "${webhook.url}" }
drills: { interval_s: ${intervalS}, routes: ["support-*"] }
connections:
  primary: { provider: mock, dialect: openai, api_key: sk-primary-valid }
  standby: { provider: mock, dialect: anthropic, api_key: ${EXPIRED_KEY} }
routes:
  support-chat:
    targets:
      - { connection: primary, model: primary-model }
      - { connection: standby, model: standby-model }
`;

beforeAll(async () => {
  webhook = await startAlertWebhook();
  gateway = await startGateway(config(1), { watch: true, mock: { rejectedKeys: [EXPIRED_KEY] } });
});
afterAll(async () => {
  await gateway.close();
  await webhook.close();
});

it('a scheduled drill finds the expired standby key — alert, structural standby, the CLI table — while every caller is served by the primary', async () => {
  const callers: { status: number; servedBy: string | null }[] = [];
  let loadRunning = true;
  const load = (async () => {
    while (loadRunning) {
      const response = await postChat(gateway.url, { model: 'support-chat', messages: hello });
      await response.text();
      callers.push({ status: response.status, servedBy: response.headers.get('x-switchyard-served-by') });
    }
  })();
  try {
    await eventually(() => webhook.alerts.some((alert) => alert.type === 'drill_failed'), 10_000, 'a drill_failed alert');
    const alert = webhook.alerts.find((candidate) => candidate.type === 'drill_failed')!;
    expect(alert).toMatchObject({ route: 'support-chat', deployment: 'standby/standby-model', position: 2, step: 'target', kind: 'credential' });
    expect(JSON.stringify(webhook.alerts)).not.toContain(EXPIRED_KEY);

    const standby = await deploymentHealth(gateway.url, 'standby/standby-model');
    expect(standby).toMatchObject({ state: 'structural', structural_cause: 'credential' });
    const metrics = await metricsText(gateway.url);
    expect(metricValue(metrics, 'switchyard_drill_failures_total', { route: 'support-chat', target: 'standby/standby-model', kind: 'credential' })).toBeGreaterThanOrEqual(1);

    // The schedule off (a reload), so the operator's own drill is not refused as a second one.
    gateway.writeConfig(config(0));
    await eventually(() => gateway.configSource.current.drills.interval_s === 0, 10_000, 'the reload');
    await eventually(async () => (await latestDrill(gateway.url))?.finished_at != null, 10_000, 'the scheduled drill to end');

    const cli = await runCli(['drill', '--url', gateway.url, '--token', ADMIN_TOKEN]);
    expect(cli.code).toBe(1);
    const lines = cli.stdout.split('\n');
    expect(lines[0]).toMatch(/^route\s+step\s+position\s+target\s+result\s+latency\s+message$/);
    expect(lines.find((line) => /^support-chat\s+target\s+2\s+standby\/standby-model\s+credential\s/.test(line))).toBeDefined();
    expect(lines.find((line) => /^support-chat\s+target\s+1\s+primary\/primary-model\s+ok\s/.test(line))).toBeDefined();
    expect(lines.find((line) => /^support-chat\s+chain\s+2\s+standby\/standby-model\s+credential\s/.test(line))).toBeDefined();
    expect(cli.stderr).toMatch(/support-chat target 2 standby\/standby-model: credential/);
    expect(cli.stdout + cli.stderr).not.toContain(EXPIRED_KEY);
  } finally {
    loadRunning = false;
    await load;
  }
  expect(callers.length).toBeGreaterThan(0);
  expect(callers.filter((caller) => caller.status !== 200 || caller.servedBy !== 'primary/primary-model')).toEqual([]);
  // The standby heard only from the drill: every request it saw presented the expired key.
  expect(gateway.mock.attemptsFor('standby-model').every((attempt) => attempt.outcome === 'status 401')).toBe(true);
}, 60_000);
