import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runRequestsList, type RequestsListOptions } from '../../src/cli/requests-list.js';
import { ADMIN_TOKEN, hello } from '../scenario/scenario-helpers.js';
import { runCli } from '../support/cli-process.js';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';

let gateway: TestGateway;
const ids: string[] = [];

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  fine: { targets: [{ connection: mock-openai, model: gpt-mock }] }
  broken: { retries: 0, targets: [{ connection: mock-openai, model: "down?status=503" }] }
`);
  for (const model of ['fine', 'broken', 'fine']) {
    const response = await postChat(gateway.url, { model, messages: hello });
    await response.text();
    ids.push(response.headers.get('x-request-id')!);
  }
});

afterAll(async () => {
  await gateway?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function list(options: Omit<RequestsListOptions, 'url'>) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((text: unknown) => void out.push(String(text)));
  vi.spyOn(console, 'error').mockImplementation((text: unknown) => void err.push(String(text)));
  const code = await runRequestsList({ url: gateway.url, ...options });
  vi.restoreAllMocks();
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** The request ids of a listing, top to bottom. */
function listedIds(stdout: string): string[] {
  return [...stdout.matchAll(/^(req_\S+)/gm)].map((match) => match[1]!);
}

describe('switchyard requests list', () => {
  it('prints one aligned line per record, newest first', async () => {
    const { code, stdout, stderr } = await list({ token: ADMIN_TOKEN });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^request +created +origin +route +status +http +attempts +served by +latency +cost$/);
    expect(listedIds(stdout)).toEqual([...ids].reverse());
    expect(stdout).toMatch(new RegExp(`^${ids[1]} +\\S+ +caller +broken +failed +502 +1 +- +\\d+ ms`, 'm'));
    expect(stdout).toMatch(new RegExp(`^${ids[0]} +\\S+ +caller +fine +ok +200 +1 +mock-openai/gpt-mock +\\d+ ms`, 'm'));
  });

  it('filters by route and status, and stops at the limit', async () => {
    expect(listedIds((await list({ token: ADMIN_TOKEN, route: 'fine' })).stdout)).toEqual([ids[2], ids[0]]);
    expect(listedIds((await list({ token: ADMIN_TOKEN, status: 'failed' })).stdout)).toEqual([ids[1]]);
    expect(listedIds((await list({ token: ADMIN_TOKEN, limit: '1' })).stdout)).toEqual([ids[2]]);
    const none = await list({ token: ADMIN_TOKEN, route: 'nothing-here' });
    expect(none).toMatchObject({ code: 0, stdout: 'no request records match' });
  });

  it('filters by origin and key name, and pages on from a record with --before', async () => {
    expect(listedIds((await list({ token: ADMIN_TOKEN, origin: 'caller' })).stdout)).toEqual([...ids].reverse());
    expect(await list({ token: ADMIN_TOKEN, origin: 'drill' })).toMatchObject({ code: 0, stdout: 'no request records match' });
    // Without virtual keys (auth mode none) no record has a key name.
    expect(await list({ token: ADMIN_TOKEN, key: 'team-a' })).toMatchObject({ code: 0, stdout: 'no request records match' });
    expect(listedIds((await list({ token: ADMIN_TOKEN, limit: '1', before: ids[2] })).stdout)).toEqual([ids[1]]);
    const unknownOrigin = await list({ token: ADMIN_TOKEN, origin: 'robot' });
    expect(unknownOrigin.code).toBe(1);
    expect(unknownOrigin.stderr).toMatch(/^the gateway answered 400: Query parameter "origin" must be one of caller, drill, canary, probe, all \(got "robot"\)\.$/);
  });

  it('takes --origin, --key and --before on the command line', async () => {
    const { code, stdout, stderr } = await runCli(['requests', 'list', '--origin', 'caller', '--before', ids[2]!, '--url', gateway.url, '--token', ADMIN_TOKEN]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(listedIds(stdout)).toEqual([ids[1], ids[0]]);
    const keyed = await runCli(['requests', 'list', '--key', 'team-a', '--url', gateway.url, '--token', ADMIN_TOKEN]);
    expect(keyed).toMatchObject({ code: 0, stdout: 'no request records match\n' });
  });

  it('passes on what the gateway says about a bad filter', async () => {
    const { code, stderr } = await list({ token: ADMIN_TOKEN, status: 'broken' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^the gateway answered 400: Query parameter "status" must be one of ok, interrupted, failed, rejected, cancelled \(got "broken"\)\.$/);
  });

  it('says the token was refused on 401', async () => {
    const { code, stderr } = await list({ token: 'wrong-token' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/refused the admin token.*--token or set SWITCHYARD_ADMIN_TOKEN/);
  });
});
