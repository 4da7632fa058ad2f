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

describe('a malformed state or store URL', () => {
  it('is an error at check-config too', async () => {
    const file = join(directory, 'bad-url.yaml');
    writeFileSync(file, `${REST}state: { kind: redis, url: "127.0.0.1:6379" }\n`);
    const { code, stderr } = await runCli(['check-config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain('state.url: a redis:// or rediss:// URL (not shown: a secret) (line 6)');
  });
});

describe('a Redis state', () => {
  it('is accepted by check-config', async () => {
    const file = join(directory, 'redis.yaml');
    writeFileSync(file, `${REST}state: { kind: redis, url: "redis://127.0.0.1:6379", key_prefix: "switchyard:" }\n`);
    const { code, stdout, stderr } = await runCli(['check-config', file]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/: ok/);
  });

  it('through sentinels is accepted by check-config, and one naming no master is refused without its password', async () => {
    const file = join(directory, 'redis-sentinel.yaml');
    const sentinels = 'kind: redis, sentinels: ["127.0.0.1:26379", "127.0.0.1:26380"], password: "sentinel-set-password"';
    writeFileSync(file, `${REST}state: { ${sentinels}, master: switchyard }\n`);
    expect(await runCli(['check-config', file])).toMatchObject({ code: 0, stderr: '' });
    writeFileSync(file, `${REST}state: { ${sentinels} }\n`);
    const { code, stdout, stderr } = await runCli(['check-config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain('state.master: required with sentinels: the name the sentinels monitor the primary under (line 6)');
    expect(stdout + stderr).not.toContain('sentinel-set-password');
  });

  it('on a Redis Cluster is accepted by check-config, and nodes with two passwords are refused without showing either', async () => {
    const file = join(directory, 'redis-cluster.yaml');
    writeFileSync(file, `${REST}state: { kind: redis-cluster, nodes: ["redis://:cluster-pass@127.0.0.1:7000", "redis://:cluster-pass@127.0.0.1:7001"] }\n`);
    expect(await runCli(['check-config', file])).toMatchObject({ code: 0, stderr: '' });
    writeFileSync(file, `${REST}state: { kind: redis-cluster, nodes: ["redis://:cluster-pass@127.0.0.1:7000", "redis://:other-pass@127.0.0.1:7001"] }\n`);
    const { code, stdout, stderr } = await runCli(['check-config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain('state.nodes[1]: the same user and password as the first node (or none): every node of a cluster takes the same (not shown: a secret) (line 6)');
    expect(stdout + stderr).not.toMatch(/cluster-pass|other-pass/);
  });

  it('of an unknown kind is refused, not replaced by memory', async () => {
    const file = join(directory, 'state-unknown-kind.yaml');
    writeFileSync(file, `${REST}state: { kind: memcached, url: "memcached://127.0.0.1:11211" }\n`);
    for (const args of [['check-config', file], ['serve', '--config', file, '--port', '0']]) {
      const { code, stdout, stderr } = await runCli(args);
      expect(code).toBe(1);
      expect(stderr).toMatch(/^ {2}state\.kind: .*\(line 6\)$/m);
      expect(stdout).not.toMatch(/listening|: ok/);
    }
  });
});

describe('a PostgreSQL store', () => {
  it('is accepted by check-config', async () => {
    const file = join(directory, 'postgres.yaml');
    writeFileSync(file, `${REST}store:\n  kind: postgres\n  url: postgres://switchyard@127.0.0.1:5432/switchyard\n`);
    const { code, stdout, stderr } = await runCli(['check-config', file]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/: ok/);
  });

  it('with a malformed URL is refused, with its path and line, by check-config and by serve', async () => {
    const file = join(directory, 'postgres-bad-url.yaml');
    writeFileSync(file, `${REST}store:\n  kind: postgres\n  url: "127.0.0.1:5432/switchyard"\n`);
    const error = '  store.url: a postgres:// or postgresql:// URL (not shown: a secret) (line 8)';
    const checked = await runCli(['check-config', file]);
    expect(checked.code).toBe(1);
    expect(checked.stderr.split('\n')).toContain(error);
    const served = await runCli(['serve', '--config', file, '--port', '0']);
    expect(served.code).toBe(1);
    expect(served.stderr.split('\n')).toContain(error);
    expect(served.stdout).not.toMatch(/listening/);
  });

  it('of an unknown kind is refused, not replaced by another', async () => {
    const file = join(directory, 'store-unknown-kind.yaml');
    writeFileSync(file, `${REST}store: { kind: mysql, url: "mysql://127.0.0.1/switchyard" }\n`);
    const { code, stderr } = await runCli(['check-config', file]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^ {2}store\.kind: .*\(line 6\)$/m);
  });
});
