import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { runKeysRotate, runKeysUpdate } from '../../src/cli/keys-change.js';
import { runTokensCreate, runTokensList, runTokensRevoke } from '../../src/cli/tokens.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { createKey, keysAuth } from '../support/virtual-keys.js';
import { ADMIN_TOKEN, adminCall, chatWith } from './admin-calls.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
  other: { targets: [{ connection: mock, model: o }] }
`);
});
afterAll(() => gateway?.close());
afterEach(() => vi.restoreAllMocks());

/** Runs a command in this process and returns its exit code with everything it printed. */
async function run(command: () => Promise<number>) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((text: unknown) => void out.push(String(text)));
  vi.spyOn(console, 'error').mockImplementation((text: unknown) => void err.push(String(text)));
  const code = await command();
  vi.restoreAllMocks();
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const options = () => ({ url: gateway.url, token: ADMIN_TOKEN });

it('tokens create prints the token once; list shows it without the secret; revoke stops it', async () => {
  const created = await run(() => runTokensCreate({ ...options(), name: 'on-call', role: 'auditor', expiresAt: '2999-01-01T00:00:00Z' }));
  expect(created).toMatchObject({ code: 0, stderr: '' });
  const secret = /sy-admin-[A-Za-z0-9_-]{43}/.exec(created.stdout)?.[0];
  const id = /^id +(tok_\S+)$/m.exec(created.stdout)?.[1];
  expect(secret && id).toBeTruthy();
  expect(created.stdout).toMatch(/^role +auditor$/m);
  expect(created.stdout).toMatch(/^team +every team$/m);
  expect(created.stdout).toContain('will not be shown again');
  expect((await adminCall(gateway.url, 'GET', '/admin/me', { token: secret! })).body).toMatchObject({ role: 'auditor' });

  const listed = await run(() => runTokensList(options()));
  expect(listed.code).toBe(0);
  expect(listed.stdout).not.toContain(secret!);
  expect(listed.stdout.split('\n').find((line) => line.startsWith(id!))).toMatch(/on-call +sy-admin-\S{4} +auditor +- +active +2999-01-01T00:00:00\.000Z/);

  const revoked = await run(() => runTokensRevoke(id!, options()));
  expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${id}: admin requests with this token now get 401` });
  expect((await adminCall(gateway.url, 'GET', '/admin/me', { token: secret! })).status).toBe(401);
  expect((await run(() => runTokensRevoke('tok_0000000000000000', options()))).code).toBe(1);
});

it('tokens create passes the gateway’s refusal on: a team role without a team, or a token that may not make tokens', async () => {
  const noTeam = await run(() => runTokensCreate({ ...options(), name: 'lead', role: 'team_admin' }));
  expect(noTeam.code).toBe(1);
  expect(noTeam.stderr).toContain('team');
  const auditor = await run(() => runTokensCreate({ ...options(), name: 'reader', role: 'auditor' }));
  const auditorToken = /sy-admin-[A-Za-z0-9_-]{43}/.exec(auditor.stdout)![0];
  const refused = await run(() => runTokensCreate({ url: gateway.url, token: auditorToken, name: 'escalate', role: 'admin' }));
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('403');
  expect(refused.stderr).toContain('"admin"');
});

it('keys rotate prints the new key once and until when the old one works; the old one is refused past --overlap-s 0', async () => {
  const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'rotated by the cli' });
  const rotated = await run(() => runKeysRotate(id, { ...options(), overlapS: '0' }));
  expect(rotated).toMatchObject({ code: 0, stderr: '' });
  const fresh = /sk-sy-[A-Za-z0-9_-]{43}/.exec(rotated.stdout)?.[0];
  expect(fresh).toBeDefined();
  expect(fresh).not.toBe(key);
  expect(rotated.stdout).toMatch(/^old key works until +\d{4}-\d\d-\d\dT[\d:.]+Z$/m);
  expect((await chatWith(gateway.url, key)).status).toBe(401);
  expect((await chatWith(gateway.url, fresh!)).status).toBe(200);

  const bad = await run(() => runKeysRotate(id, { ...options(), overlapS: 'an hour' }));
  expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('--overlap-s') });
});

it('keys update sends only what its options set, clears with --clear, and prints the key as changed', async () => {
  const { id, key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'updated by the cli', budget: { usd: 5, period: 'month' } });
  const updated = await run(() => runKeysUpdate(id, { ...options(), name: 'renamed', routes: 'other', rpm: '30', clear: 'budget' }));
  expect(updated).toMatchObject({ code: 0, stderr: '' });
  expect(updated.stdout).toMatch(/^name +renamed$/m);
  expect(updated.stdout).toMatch(/^routes +other$/m);
  expect(updated.stdout).toMatch(/^budget +-$/m);
  expect(updated.stdout).toMatch(/^limits +rpm 30, tpm -$/m);
  expect((await chatWith(gateway.url, key, 'r')).status).toBe(403);

  expect(await run(() => runKeysUpdate(id, options()))).toMatchObject({ code: 1, stderr: expect.stringContaining('nothing to change') });
  expect(await run(() => runKeysUpdate(id, { ...options(), clear: 'name' }))).toMatchObject({ code: 1, stderr: expect.stringContaining('--clear') });
  expect(await run(() => runKeysUpdate(id, { ...options(), routes: 'r', clear: 'routes' }))).toMatchObject({ code: 1, stderr: expect.stringContaining('both set and cleared') });
  expect(await run(() => runKeysUpdate('key_0000000000000000', { ...options(), name: 'x' }))).toMatchObject({ code: 1, stderr: expect.stringContaining('404') });
});
