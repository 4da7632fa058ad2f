import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runKeysCreate, runKeysList, runKeysRevoke } from '../../src/cli/keys.js';
import { authenticateRequest } from '../../src/keys/authenticate.js';
import { startKeysServer, type KeysServer } from './start-keys-server.js';

const TOKEN = 'admin-token-for-keys-cli-tests';
let admin: KeysServer;

beforeAll(async () => {
  admin = await startKeysServer(TOKEN);
});

afterAll(async () => {
  await admin?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** Runs a command and returns its exit code with everything it printed. */
async function run(command: () => Promise<number>) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((text: unknown) => void out.push(String(text)));
  vi.spyOn(console, 'error').mockImplementation((text: unknown) => void err.push(String(text)));
  const code = await command();
  vi.restoreAllMocks();
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function secretIn(stdout: string): string {
  const secret = /sk-sy-[A-Za-z0-9_-]{43}/.exec(stdout)?.[0];
  if (!secret) throw new Error(`no key in:\n${stdout}`);
  return secret;
}

describe('switchyard keys', () => {
  it('creates a key, shows it once with a warning, lists it without the secret, and revokes it', async () => {
    const created = await run(() =>
      runKeysCreate({
        url: admin.url,
        token: TOKEN,
        name: 'support bot',
        routes: 'support-*, openai-prod/*',
        budgetUsd: '12.5',
        budgetPeriod: 'month',
        rpm: '60',
        tpm: '100000',
        expiresAt: '2999-01-01T00:00:00Z',
      }),
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const secret = secretIn(created.stdout);
    expect(created.stdout).toMatch(/^name +support bot$/m);
    expect(created.stdout).toMatch(/^routes +support-\*,openai-prod\/\*$/m);
    expect(created.stdout).toMatch(/^budget +\$12\.50 \/ month$/m);
    expect(created.stdout).toMatch(/^limits +rpm 60, tpm 100000$/m);
    expect(created.stdout).toMatch(/^expires +2999-01-01T00:00:00\.000Z$/m);
    expect(created.stdout).toContain('will not be shown again');
    const id = /^id +(key_\S+)$/m.exec(created.stdout)?.[1];
    expect(id).toBeDefined();

    const listed = await run(() => runKeysList({ url: admin.url, token: TOKEN }));
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(secret);
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toMatch(/^id +name +prefix +status +kind +team +routes +budget +rpm +tpm +expires +created$/);
    const row = lines.find((line) => line.startsWith(id!));
    expect(row).toMatch(new RegExp(`^${id} +support bot +${secret.slice(0, 10)} +active +service +- +support-\\*,openai-prod/\\* +\\$12\\.50 / month +60 +100000 +2999-01-01T00:00:00\\.000Z +\\S+$`));
    // Aligned: the header's columns start where the row's do.
    expect(lines[0]!.indexOf('status')).toBe(row!.indexOf('active'));

    const revoked = await run(() => runKeysRevoke(id!, { url: admin.url, token: TOKEN }));
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked ${id}`);
    await expect(
      authenticateRequest({ authorization: `Bearer ${secret}` }, { mode: 'keys', keys: admin.cache, nowMs: Date.now() }),
    ).rejects.toMatchObject({ status: 401 });
    expect((await run(() => runKeysList({ url: admin.url, token: TOKEN }))).stdout).toMatch(new RegExp(`^${id} .* revoked `, 'm'));
  });

  it('takes the token from SWITCHYARD_ADMIN_TOKEN when --token is not given', async () => {
    vi.stubEnv('SWITCHYARD_ADMIN_TOKEN', TOKEN);
    const { code, stdout } = await run(() => runKeysCreate({ url: `${admin.url}/`, name: 'from env' }));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^routes +all$/m);
    expect(stdout).toMatch(/^budget +-$/m);
  });

  it('says the token was refused on 401', async () => {
    vi.stubEnv('SWITCHYARD_ADMIN_TOKEN', '');
    for (const command of [
      () => runKeysList({ url: admin.url, token: 'wrong-token' }),
      () => runKeysCreate({ url: admin.url, token: 'wrong-token', name: 'n' }),
      () => runKeysRevoke('key_any', { url: admin.url }),
    ]) {
      const { code, stderr } = await run(command);
      expect(code).toBe(1);
      expect(stderr).toMatch(/refused the admin token.*--token or set SWITCHYARD_ADMIN_TOKEN/);
    }
  });

  it('says there is no such key when revoking an unknown id', async () => {
    const { code, stderr } = await run(() => runKeysRevoke('key_missing', { url: admin.url, token: TOKEN }));
    expect(code).toBe(1);
    expect(stderr).toBe(`no key with id key_missing at ${admin.url}`);
  });

  it.each([
    ['--budget-usd without --budget-period', { budgetUsd: '10' }, /--budget-usd and --budget-period go together/],
    ['a budget that is not an amount', { budgetUsd: 'ten', budgetPeriod: 'month' }, /--budget-usd must be an amount/],
    ['a fractional rpm', { rpm: '1.5' }, /--rpm must be a whole number above 0/],
    ['a zero tpm', { tpm: '0' }, /--tpm must be a whole number above 0/],
    ['an empty route glob', { routes: 'support,,search' }, /--routes takes comma-separated route globs/],
  ])('refuses %s before calling the gateway', async (_case, options, message) => {
    const { code, stderr } = await run(() => runKeysCreate({ url: 'http://127.0.0.1:1', token: TOKEN, name: 'n', ...options }));
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
  });

  it("prints the gateway's reason for a rejected key", async () => {
    const { code, stderr } = await run(() => runKeysCreate({ url: admin.url, token: TOKEN, name: 'n', budgetUsd: '5', budgetPeriod: 'week' }));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^the gateway answered 400: Invalid request: budget\.period: /);
  });

  it('says the connection was refused when nothing listens', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { code, stderr } = await run(() => runKeysList({ url, token: TOKEN }));
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot reach the gateway at ${url}: connection refused`);
  });
});
