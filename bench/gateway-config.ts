import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayRoute, upstreamModel } from './scenarios.js';

export interface GatewayConfigFile {
  file: string;
  /** The gateway's SQLite store, beside the config, removed with it. */
  storePath: string;
  remove(): void;
}

/** Where the gateway keeps its shared state: in its own process, or in the bench's redis-server. */
export type BenchState = { kind: 'memory' } | { kind: 'redis'; url: string };

/** The bench's own admin token, to create the virtual key the load sends (loopback only). */
export const benchAdminToken = 'bench-admin-token';

/**
 * Writes the gateway's config to a fresh temp directory: one `provider: mock` connection whose
 * base_url is the external mock (so the gateway does not start its in-process one), and one
 * route with that single target, and a file store of its own (a fresh one each run). `retries: 0` so a failed upstream call shows up as a non-2xx
 * in the measurement instead of being hidden by a retry. Requests carry a virtual key (see
 * `createBenchKey`) and the target has a price, so every request passes the whole gate: rate
 * limit and budget reservation, in Redis when `state` says so.
 */
export function writeGatewayConfig(mockUrl: string, state: BenchState = { kind: 'memory' }): GatewayConfigFile {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
  const file = join(directory, 'config.yaml');
  const storePath = join(directory, 'switchyard.db');
  const yaml = [
    'server: { host: 127.0.0.1, port: 0 }',
    `store: { kind: sqlite, path: ${JSON.stringify(storePath)} }`,
    'auth: { mode: keys }',
    `admin: { token: ${benchAdminToken} }`,
    state.kind === 'redis' ? `state: { kind: redis, url: ${JSON.stringify(state.url)}, key_prefix: "bench:" }` : 'state: { kind: memory }',
    'connections:',
    `  bench-mock: { provider: mock, dialect: openai, base_url: ${JSON.stringify(`${mockUrl}/v1`)} }`,
    'routes:',
    `  ${gatewayRoute}:`,
    '    retries: 0',
    '    targets:',
    `      - { connection: bench-mock, model: ${JSON.stringify(upstreamModel)}, price: { input_per_mtok: 1, output_per_mtok: 1 } }`,
    '',
  ].join('\n');
  writeFileSync(file, yaml);
  return { file, storePath, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
