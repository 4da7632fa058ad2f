import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-backends-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

const REST = `auth: { mode: none }
connections:
  mock: { provider: mock }
routes:
  r: { targets: [{ connection: mock, model: m }] }
`;

const CASES = [
  {
    name: 'state.kind: redis',
    yaml: `state: { kind: redis, url: "redis://127.0.0.1:6379", key_prefix: "switchyard:" }\nstore: { kind: sqlite, path: ":memory:" }\n${REST}`,
    error: 'state.kind: redis is not available in this build yet; use state: { kind: memory } for now (line 1)',
  },
  {
    name: 'store.kind: postgres',
    yaml: `${REST}store:\n  kind: postgres\n  url: postgres://switchyard@127.0.0.1:5432/switchyard\n`,
    error: 'store.kind: postgres is not available in this build yet; use store: { kind: sqlite, path: ./switchyard.db } for now (line 7)',
  },
];

describe.each(CASES)('$name is refused until this build has it', ({ name, yaml, error }) => {
  const file = join(directory, `${name.replace(/\W+/g, '-')}.yaml`);
  writeFileSync(file, yaml);

  it('by check-config, with its path and line', async () => {
    const { code, stdout, stderr } = await runCli(['check-config', file]);
    expect(code).toBe(1);
    expect(stderr.split('\n')).toContain(`  ${error}`);
    expect(stdout).not.toMatch(/: ok/);
  });

  it('by serve, with the same error and no stack trace, before it listens', async () => {
    const { code, stdout, stderr } = await runCli(['serve', '--config', file, '--port', '0']);
    expect(code).toBe(1);
    expect(stderr.split('\n')).toContain(`  ${error}`);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stdout).not.toMatch(/listening/);
  });
});

describe('a malformed state or store URL', () => {
  it('is an error at check-config too', async () => {
    const file = join(directory, 'bad-url.yaml');
    writeFileSync(file, `${REST}state: { kind: redis, url: "127.0.0.1:6379" }\n`);
    const { code, stderr } = await runCli(['check-config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain('state.url: a redis:// or rediss:// URL (not shown: a secret) (line 6)');
  });
});
