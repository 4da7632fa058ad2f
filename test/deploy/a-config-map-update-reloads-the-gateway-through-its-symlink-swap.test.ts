import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ConfigSource, type ConfigSourceListener } from '../../src/config/config-source.js';

// What the kubelet does to a ConfigMap volume (its atomic writer): the data lives in a timestamped
// directory, `..data` links to it, `config.yaml` links through `..data`; an update writes a new
// directory and renames a fresh link over `..data`. `config.yaml` itself never changes.
let directory: string;
let source: ConfigSource | undefined;
afterEach(() => {
  source?.close();
  rmSync(directory, { recursive: true, force: true });
});

function configWithRoute(route: string): string {
  return `store: { kind: sqlite, path: ":memory:" }\nconnections: { mock: { provider: mock } }\nroutes: { ${route}: { targets: [{ connection: mock, model: m }] } }\n`;
}

function writeVersion(name: string, yaml: string): void {
  mkdirSync(join(directory, name));
  writeFileSync(join(directory, name, 'config.yaml'), yaml);
}

it('swapping ..data to a new version reloads the config, as a kubectl apply of the ConfigMap does', async () => {
  directory = mkdtempSync(join(tmpdir(), 'switchyard-configmap-'));
  writeVersion('..2026_12_05_01', configWithRoute('before'));
  symlinkSync('..2026_12_05_01', join(directory, '..data'));
  symlinkSync(join('..data', 'config.yaml'), join(directory, 'config.yaml'));
  source = ConfigSource.load(join(directory, 'config.yaml'), { env: {} });
  expect(Object.keys(source.current.routes)).toEqual(['before']);

  const reloaded = new Promise<ConfigSourceListener>((resolve) => source!.subscribe(resolve));
  source.watch();
  writeVersion('..2026_12_05_02', configWithRoute('after'));
  symlinkSync('..2026_12_05_02', join(directory, '..data_tmp'));
  renameSync(join(directory, '..data_tmp'), join(directory, '..data'));

  const change = await Promise.race([reloaded, new Promise<'none'>((resolve) => setTimeout(() => resolve('none'), 10_000))]);
  expect(change).toMatchObject({ event: 'reloaded' });
  expect(Object.keys(source.current.routes)).toEqual(['after']);
});
