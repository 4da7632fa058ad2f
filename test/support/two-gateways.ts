/**
 * Two in-process gateways for the calling test file on one shared state (a Redis reached through
 * sentinels, a Redis Cluster), with one SQLite file for keys and the ledger; started after the
 * file's servers, stopped before them. `bothAre` reads each one's `/readyz` state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stateOf } from '../fleet/fleet-helpers.js';
import { loggerInto } from './captured-log.js';
import { startGateway, type TestGateway } from './start-gateway.js';
import { keysAuth } from './virtual-keys.js';

export interface TwoGatewaysOptions {
  keyPrefix: string;
  adminToken: string;
  /** The one target of route `r`, as YAML (`{ connection: mock, model: … }`). */
  target: string;
}

export interface TwoGateways {
  gateways(): TestGateway[];
  bothAre(state: string): Promise<boolean>;
  /** What the gateways logged about shared state (warnings and above), to explain a wait that failed. */
  stateLog(): string;
}

/** `state` is the YAML inside `state: { … }` but the key prefix (read once the file's servers run). */
export function twoGatewaysForThisFile(available: boolean, state: () => string, options: TwoGatewaysOptions): TwoGateways {
  let directory: string | undefined;
  let gateways: TestGateway[] = [];
  const logged: string[][] = [[], []];
  beforeAll(async () => {
    if (!available) return;
    directory = mkdtempSync(join(tmpdir(), `switchyard-${options.keyPrefix}-gateways-`));
    const config = `
state: { ${state()}, key_prefix: "${options.keyPrefix}:" }
store: { kind: sqlite, path: "${join(directory, 'shared.db')}" }
${keysAuth(options.adminToken)}
connections:
  mock: { provider: mock }
routes:
  r: { targets: [${options.target}] }
`;
    gateways = [await startGateway(config, { logger: loggerInto(logged[0]!, 'warn') })];
    gateways.push(await startGateway(config, { logger: loggerInto(logged[1]!, 'warn') }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    if (directory) rmSync(directory, { recursive: true, force: true });
  });
  return {
    gateways: () => gateways,
    bothAre: async (state) => (await Promise.all(gateways.map((gateway) => stateOf(gateway.url)))).every((each) => each === state),
    stateLog: () => logged.map((lines, index) => `gateway ${index + 1}:\n${lines.slice(-20).join('')}`).join('\n'),
  };
}
