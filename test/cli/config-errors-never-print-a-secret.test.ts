import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli-process.js';

/** In the file itself, as an operator sometimes writes one (of the wrong type, here). */
const LITERAL_KEY = 'sk-literal-secret-key-0001';
/** In the environment, where secrets belong; interpolated into places that do not take them. */
const ENV_SECRET = 'env-secret-value-0002';
const env = { DEPLOY_SECRET: ENV_SECRET };

const BAD_CONFIG = `auth: { mode: none }
store: { kind: sqlite, path: ":memory:" }
connections:
  mock: { provider: mock }
  wrong-type: { provider: openai, api_key: ["${LITERAL_KEY}"] }
  secret-provider: { provider: "\${env:DEPLOY_SECRET}" }
  secret-region: { provider: bedrock, api_key: k, region: "\${env:DEPLOY_SECRET}" }
  secret-url: { provider: openai-compatible, api_key: k, base_url: "\${env:DEPLOY_SECRET}" }
routes:
  r:
    targets:
      - { connection: mock, model: m }
      - { connection: "\${env:DEPLOY_SECRET}", model: m }
`;

/** Every error of BAD_CONFIG, each at its line, none quoting the value. */
const EXPECTED_ERRORS = [
  /connections\.wrong-type\.api_key: .*\(not shown: a secret\) \(line 5\)/,
  /connections\.secret-provider\.provider: .*\(not shown: it comes from \$\{env:DEPLOY_SECRET\}\) \(line 6\)/,
  /connections\.secret-region\.region: .*\(not shown: it comes from \$\{env:DEPLOY_SECRET\}\) \(line 7\)/,
  /connections\.secret-url\.base_url: .*\(not shown: it comes from \$\{env:DEPLOY_SECRET\}\) \(line 8\)/,
  /routes\.r\.targets\[1\]\.connection: unknown connection \(not shown: it comes from \$\{env:DEPLOY_SECRET\}\) \(line 13\)/,
];

const directory = mkdtempSync(join(tmpdir(), 'switchyard-secret-errors-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

function expectNoSecret(text: string): void {
  expect(text).not.toContain(LITERAL_KEY);
  expect(text).not.toContain(ENV_SECRET);
}

describe('config errors never print a secret', () => {
  it('check-config names every bad value without showing it', async () => {
    const file = join(directory, 'check.yaml');
    writeFileSync(file, BAD_CONFIG);
    const { code, stdout, stderr } = await runCli(['check-config', file], { env });
    expect(code).toBe(1);
    for (const error of EXPECTED_ERRORS) expect(stderr).toMatch(error);
    expectNoSecret(stdout + stderr);
  });

  it('serve refuses to start with the same errors, without showing them', async () => {
    const file = join(directory, 'serve.yaml');
    writeFileSync(file, BAD_CONFIG);
    const { code, stdout, stderr } = await runCli(['serve', '--config', file, '--port', '0'], { env });
    expect(code).toBe(1);
    for (const error of EXPECTED_ERRORS) expect(stderr).toMatch(error);
    expect(stdout).not.toMatch(/listening/);
    expectNoSecret(stdout + stderr);
  });

  it('a rejected reload logs the errors without showing them', async () => {
    const file = join(directory, 'reload.yaml');
    writeFileSync(file, 'auth: { mode: none }\nstore: { kind: sqlite, path: ":memory:" }\nconnections: { mock: { provider: mock } }\nroutes: { r: { targets: [{ connection: mock, model: m }] } }\n');
    const gateway = startCli(['serve', '--config', file, '--port', '0'], { env });
    try {
      const [, url] = await gateway.waitFor(/Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/);
      writeFileSync(file, BAD_CONFIG);
      gateway.child.kill('SIGHUP');
      const [line] = await gateway.waitFor(/^\{.*config reload rejected.*$/m);
      const { issues } = JSON.parse(line) as { issues: { path: string; message: string; line: number }[] };
      const logged = issues.map((issue) => `${issue.path}: ${issue.message} (line ${issue.line})`).join('\n');
      for (const error of EXPECTED_ERRORS) expect(logged).toMatch(error);
      expectNoSecret(gateway.output());
      // The config in force stays: the route still answers.
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'r', messages: [{ role: 'user', content: 'hi' }] }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-switchyard-served-by')).toBe('mock/m');
    } finally {
      await gateway.stop();
    }
  });
});
