import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { postgresForThisFile } from '../support/postgres-server.js';

const { available, server } = postgresForThisFile();
const directory = mkdtempSync(join(tmpdir(), 'switchyard-serve-pg-'));
let gateway: CliProcess | undefined;

afterAll(async () => {
  await gateway?.stop();
  rmSync(directory, { recursive: true, force: true });
});

it.skipIf(!available)('serve retries while PostgreSQL is down, then migrates it and serves; the password never reaches the log', async () => {
  const url = (await server().createDatabase('late')).replace('postgres@', 'postgres:hunter2-secret@');
  await server().stop();
  const file = join(directory, 'config.yaml');
  writeFileSync(
    file,
    `auth: { mode: none }
store: { kind: postgres, url: "${url}", spill_dir: "${directory}" }
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
`,
  );
  gateway = startCli(['serve', '--config', file, '--port', '0'], { cwd: directory, env: { LOG_FORMAT: 'json' } });
  await gateway.waitFor(/does not answer yet; retrying/);
  expect(gateway.output()).not.toMatch(/listening/);

  await server().start();
  const [, listening] = await gateway.waitFor(/Switchyard listening on (http:\/\/[\d.:]+)/, 20_000);
  const response = await fetch(`${listening}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'r', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(response.status).toBe(200);
  expect(gateway.output()).not.toContain('hunter2-secret');
}, 60_000);
