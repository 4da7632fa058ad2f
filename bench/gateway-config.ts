import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayRoute, upstreamModel, type Answer } from './scenarios.js';

export interface GatewayConfigFile {
  file: string;
  /** The gateway's SQLite store, beside the config, removed with it. */
  storePath: string;
  remove(): void;
}

/** Where the gateway keeps its shared state: in its own process, or in a redis-server of its own. */
export type BenchState = { kind: 'memory' } | { kind: 'redis'; url: string };

export interface GatewayConfigOptions {
  mockUrl: string;
  /** The answers the bench asks for: a route for each. */
  answers: readonly Answer[];
  state?: BenchState;
  /**
   * `server.max_in_flight` and the connection's `max_in_flight` (its upstream pool), for the
   * streams mode's thousands of open requests; the defaults (4096, 256) otherwise, as production.
   */
  maxInFlight?: number;
  /**
   * `anthropic`: the mock connection speaks Anthropic's Messages wire, so a Chat caller's body and
   * every answer are translated both ways (the `gateway-translated` path); else Chat Completions,
   * which a Chat caller is relayed in.
   */
  dialect?: 'anthropic';
}

/** The bench's own admin token, to create the virtual key the load sends (loopback only). */
export const benchAdminToken = 'bench-admin-token';

/**
 * Writes the gateway's config to a fresh temp directory: one `provider: mock` connection whose
 * base_url is the external mock (so the gateway does not start its in-process one), one route
 * per answer with that single target, and a file store of its own (a fresh one each run).
 * `retries: 0` so a failed upstream call shows up as a non-2xx in the measurement instead of
 * being hidden by a retry. Requests carry a virtual key (see `createBenchKey`) and the target has
 * a price, so every request passes the whole gate: rate limit and budget reservation, in Redis
 * when `state` says so. Only settings every build since 8a2fa5b accepts are written, so a
 * baseline build reads the same file (no Redis `key_prefix`: each Redis-state gateway has a
 * redis-server of its own).
 */
export function writeGatewayConfig(options: GatewayConfigOptions): GatewayConfigFile {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
  const file = join(directory, 'config.yaml');
  const storePath = join(directory, 'switchyard.db');
  const state = options.state ?? { kind: 'memory' };
  const limit = options.maxInFlight === undefined ? '' : `, max_in_flight: ${options.maxInFlight}`;
  // The mock serves Anthropic's wire at its root, Chat Completions under /v1.
  const upstream = options.dialect === 'anthropic' ? `dialect: anthropic, base_url: ${JSON.stringify(options.mockUrl)}` : `dialect: openai, base_url: ${JSON.stringify(`${options.mockUrl}/v1`)}`;
  const yaml = [
    `server: { host: 127.0.0.1, port: 0${limit} }`,
    `store: { kind: sqlite, path: ${JSON.stringify(storePath)} }`,
    'auth: { mode: keys }',
    `admin: { token: ${benchAdminToken} }`,
    state.kind === 'redis' ? `state: { kind: redis, url: ${JSON.stringify(state.url)} }` : 'state: { kind: memory }',
    'connections:',
    `  bench-mock: { provider: mock, ${upstream}${limit} }`,
    'routes:',
    // One route per distinct answer: scenarios share answers, and YAML refuses a key twice.
    ...[...new Map(options.answers.map((answer) => [gatewayRoute(answer), answer])).values()].flatMap((answer) => [
      `  ${gatewayRoute(answer)}:`,
      '    retries: 0',
      '    targets:',
      `      - { connection: bench-mock, model: ${JSON.stringify(upstreamModel(answer))}, price: { input_per_mtok: 1, output_per_mtok: 1 } }`,
    ]),
    '',
  ].join('\n');
  writeFileSync(file, yaml);
  return { file, storePath, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
