import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runRequestsShow } from '../../src/cli/requests-show.js';
import { sampleRecord } from './sample-record.js';
import { startAdminServer, type AdminServer } from './start-admin-server.js';

const TOKEN = 'admin-token-for-cli-tests';
let admin: AdminServer;

beforeAll(async () => {
  admin = await startAdminServer(TOKEN);
  admin.records.add(sampleRecord({ id: 'req_timeline' }));
});

afterAll(async () => {
  await admin?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** Runs the command and returns its exit code with everything it printed. */
async function show(id: string, options: { url: string; token?: string }) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((text: unknown) => void out.push(String(text)));
  vi.spyOn(console, 'error').mockImplementation((text: unknown) => void err.push(String(text)));
  const code = await runRequestsShow(id, options);
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

describe('switchyard requests show', () => {
  it('prints the header and one aligned row per attempt', async () => {
    const { code, stdout, stderr } = await show('req_timeline', { url: admin.url, token: TOKEN });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^request +req_timeline$/m);
    expect(stdout).toMatch(/^status +ok$/m);
    expect(stdout).toMatch(/^served by +mock-anthropic\/claude-haiku \(anthropic\)$/m);
    expect(stdout).toMatch(/^latency +352 ms$/m);
    expect(stdout).toMatch(/^first token +265 ms$/m);
    expect(stdout).toMatch(/^added latency +6 ms$/m);
    expect(stdout).toMatch(/^usage +12 in \/ 34 out$/m);
    expect(stdout).toMatch(/^cost +\$0\.000123$/m);

    const lines = stdout.split('\n');
    const first = lines.find((line) => line.startsWith('#1 '));
    const second = lines.find((line) => line.startsWith('#2 '));
    expect(first).toMatch(/^#1 +\+0 ms +mock-openai\/gpt-4o-mini +server_error +503 +41 ms +- +no +- +- +server_error — The upstream is overloaded\.$/);
    expect(second).toMatch(/^#2 +\+230 ms +mock-anthropic\/claude-haiku +ok +200 +120 ms +35 ms +yes +12 in \/ 34 out +\$0\.000123 +served the answer$/);
    // Aligned: every column starts at the same offset in both rows.
    expect(first!.indexOf('mock-openai')).toBe(second!.indexOf('mock-anthropic'));
  });

  it("shows each attempt's cache reads and writes, and what it cost", async () => {
    const [failed, served] = sampleRecord().attempts;
    const usage = { input_tokens: 1_200, output_tokens: 34, cache_read_tokens: 0, cache_write_tokens: 1_000, cache_write_1h_tokens: 1_000 };
    admin.records.add(sampleRecord({ id: 'req_cache_loss', attempts: [failed!, { ...served!, usage, cost_usd: 0.006_7 }], usage, cost_usd: 0.006_7 }));
    const { code, stdout } = await show('req_cache_loss', { url: admin.url, token: TOKEN });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage +1200 in \/ 34 out \/ 1000 cache write \(1000 for 1 h\)$/m);
    expect(stdout.split('\n').find((line) => line.startsWith('#2 '))).toMatch(/ 1200 in \/ 34 out \/ 1000 cache write \(1000 for 1 h\) +\$0\.006700 +served the answer$/);
  });

  it('takes the token from SWITCHYARD_ADMIN_TOKEN when --token is not given', async () => {
    vi.stubEnv('SWITCHYARD_ADMIN_TOKEN', TOKEN);
    const { code } = await show('req_timeline', { url: `${admin.url}/` });
    expect(code).toBe(0);
  });

  it('says the token was refused on 401', async () => {
    vi.stubEnv('SWITCHYARD_ADMIN_TOKEN', '');
    const { code, stderr } = await show('req_timeline', { url: admin.url, token: 'wrong-token' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/refused the admin token.*--token or set SWITCHYARD_ADMIN_TOKEN/);
  });

  it('says there is no such request on 404', async () => {
    const { code, stderr } = await show('req_missing', { url: admin.url, token: TOKEN });
    expect(code).toBe(1);
    expect(stderr).toContain('no request with id req_missing');
  });

  it('says the connection was refused when nothing listens', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { code, stderr } = await show('req_timeline', { url, token: TOKEN });
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot reach the gateway at ${url}: connection refused`);
  });
});
