import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../support/cli-process.js';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, eventually, hello, listRecords } from '../scenario-helpers.js';

/**
 * The README's first calls: a route whose primary answers 503 fails over, the primary is ejected,
 * and the gateway probes it every couple of seconds (about 1,800 records an hour). The config
 * sets nothing but the admin token, connections and targets.
 */
let gateway: TestGateway;
const callerIds: string[] = [];

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  failover:
    targets:
      - { connection: mock-openai, model: "primary?status=503" }
      - { connection: mock-anthropic, model: standby }
`);
  for (let sent = 0; sent < 3; sent++) {
    const response = await postChat(gateway.url, { model: 'failover', messages: hello });
    await response.text();
    expect(response.status).toBe(200);
    callerIds.unshift(response.headers.get('x-request-id')!);
  }
  await eventually(async () => (await listRecords(gateway.url, 'origin=probe')).length >= 2, 10_000, 'two recovery probes of the ejected primary');
}, 60_000);
afterAll(() => gateway?.close());

it("GET /admin/requests lists the callers' requests by default, the probes with origin=probe, and both with origin=all", async () => {
  expect((await listRecords(gateway.url, 'limit=100')).map((record) => record.id)).toEqual(callerIds);
  const probes = await listRecords(gateway.url, 'origin=probe&limit=100');
  expect(probes.length).toBeGreaterThanOrEqual(2);
  expect(probes.every((record) => record.origin === 'probe' && record.route === 'mock-openai/primary?status=503')).toBe(true);
  const all = (await listRecords(gateway.url, 'origin=all&limit=100')).map((record) => record.id);
  for (const id of [...callerIds, ...probes.map((record) => record.id)]) expect(all).toContain(id);
});

it("switchyard requests list shows the callers' requests by default and the probes with --origin probe or all", async () => {
  const listed = async (origin?: string): Promise<string> => {
    const { code, stdout, stderr } = await runCli(['requests', 'list', ...(origin ? ['--origin', origin] : []), '--limit', '100', '--url', gateway.url, '--token', ADMIN_TOKEN]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    return stdout;
  };
  const rows = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('req_'));
  const callers = rows(await listed());
  expect(callers.map((line) => line.split(/ +/)[0])).toEqual(callerIds);
  expect(callers.every((line) => / caller +failover +ok /.test(line))).toBe(true);
  const probes = rows(await listed('probe'));
  expect(probes.length).toBeGreaterThanOrEqual(2);
  expect(probes.every((line) => / probe +mock-openai\/primary\?status=503 +failed /.test(line))).toBe(true);
  const all = rows(await listed('all'));
  expect(all.filter((line) => / probe /.test(line)).length).toBeGreaterThanOrEqual(probes.length);
  expect(all.filter((line) => / caller /.test(line))).toHaveLength(callerIds.length);
});
