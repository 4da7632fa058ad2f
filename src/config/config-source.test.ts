import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from './config-issue.js';
import { ConfigSource } from './config-source.js';

const REST = 'connections: { mock: { provider: mock } }\nroutes: { r: { targets: [{ connection: mock, model: m }] } }\n';
let directory: string | undefined;

afterEach(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

function fileWith(yaml: string): string {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-config-source-'));
  const file = join(directory, 'config.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('ConfigSource', () => {
  it('keeps a minted admin token for every snapshot that opts in with token_file and sets no token', () => {
    const file = fileWith(`admin: { token_file: .switchyard/admin-token }\n${REST}`);
    const source = ConfigSource.load(file, { env: {} });
    source.useMintedAdminToken('minted-token-value');
    expect(source.current.admin.token).toBe('minted-token-value');
    expect(Object.isFrozen(source.current.admin)).toBe(true);

    expect(source.reload()).toEqual([]);
    expect(source.current.admin.token).toBe('minted-token-value');

    writeFileSync(file, `admin: { token: configured-token, token_file: .switchyard/admin-token }\n${REST}`);
    expect(source.reload()).toEqual([]);
    expect(source.current.admin.token).toBe('configured-token');

    writeFileSync(file, REST);
    expect(source.reload()).toEqual([]);
    expect(source.current.admin.token).toBeUndefined();
  });

  it('reports a file it cannot read as a config error, not a crash', () => {
    expect(() => ConfigSource.load(join(tmpdir(), 'no-such-switchyard-config.yaml'))).toThrow(ConfigError);
  });
});
