import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, type CliProcess } from '../support/cli-process.js';

const DEMO_CONFIG = join(process.cwd(), 'examples', 'demo.yaml');

let directory: string;
let gateway: CliProcess | undefined;

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  rmSync(directory, { recursive: true, force: true });
});

/** `serve` in a fresh working directory, as `npm start` runs it: no admin token anywhere. */
async function serveIn(config: string): Promise<string> {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-quick-start-'));
  gateway = startCli(['serve', '--config', config, '--port', '0'], { cwd: directory, env: {} });
  const [, url] = await gateway.waitFor(/Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return url!;
}

describe('the quick start can be inspected at once', () => {
  it('serve writes a token file the admin commands use, and requests list / show read the records', async () => {
    const url = await serveIn(DEMO_CONFIG);
    const tokenFile = join(directory, '.switchyard', 'admin-token');
    expect(gateway!.output()).toContain(`admin token written to ${tokenFile}`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);

    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-failover', messages: [{ role: 'user', content: 'Hello' }] }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(200);
    const id = response.headers.get('x-request-id')!;

    const listed = await runCli(['requests', 'list', '--url', url, '--route', 'demo-failover'], { cwd: directory, env: {} });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id} .* demo-failover +ok +200 +2 +mock-anthropic/claude-standby `, 'm'));

    const shown = await runCli(['requests', 'show', id, '--url', url], { cwd: directory, env: {} });
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    // What the providers saw: the primary's 503, then the standby's answer.
    expect(shown.stdout).toMatch(/^#1 +\+\d+ ms +mock-openai\/primary-mock\?status=503 +server_error +503 /m);
    expect(shown.stdout).toMatch(/^#2 +\+\d+ ms +mock-anthropic\/claude-standby +ok +200 /m);
  });

  it('a config that does not opt in gets no token file, and its admin API stays closed', async () => {
    const config = join(tmpdir(), `switchyard-no-token-file-${process.pid}.yaml`);
    writeFileSync(config, 'auth: { mode: none }\nstore: { kind: sqlite, path: ":memory:" }\nconnections: { mock: { provider: mock } }\nroutes: { r: { targets: [{ connection: mock, model: m }] } }\n');
    try {
      const url = await serveIn(config);
      expect(existsSync(join(directory, '.switchyard'))).toBe(false);
      const listed = await runCli(['requests', 'list', '--url', url], { cwd: directory, env: {} });
      expect(listed.code).toBe(1);
      expect(listed.stderr).toMatch(/refused the admin token \(401: The admin API is disabled/);
    } finally {
      rmSync(config, { force: true });
    }
  });
});
