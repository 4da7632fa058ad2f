/**
 * A fleet for the tests: 2–3 real `switchyard serve` processes (the built CLI: `npm run build`
 * first) on one config file, sharing the test file's Redis (`state.kind: redis`, one server or a
 * Sentinel set; or `redis-cluster`) and PostgreSQL (`store.kind: postgres`), gated by virtual keys with an admin
 * token, and sending to upstreams the test itself runs, so a deployment that fails fails for
 * every replica. Each replica has its own working directory (its spill files) unless they are
 * asked to share one, as replicas started from one directory do; each picks its own port; `stop`
 * ends them all. The fault soak (bench/fault-soak.ts) runs its fleet with it too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROCESS_START_TIMEOUT_MS, startCli, type CliProcess } from './cli-process.js';

export const FLEET_ADMIN_TOKEN = 'fleet-admin-token';

/** One Redis server, the sentinels that name the primary of `master`, or a Redis Cluster by its nodes. */
export type FleetRedis = { url: string } | { sentinels: readonly string[]; master: string } | { clusterNodes: readonly string[] };

export interface FleetOptions {
  redis: FleetRedis;
  postgresUrl: string;
  /** Connections, routes and anything else the behaviour needs, as YAML top-level keys. */
  yaml: string;
  /** Default 2. */
  replicas?: number;
  /** Default `fleet:`; the test's Redis is its own, so this only shows the prefix is honoured. */
  keyPrefix?: string;
  /** Every replica started in one working directory (the default `store.spill_dir` is then shared). */
  sharedDirectory?: boolean;
}

export interface Replica {
  /** `http://127.0.0.1:PORT` */
  url: string;
  process: CliProcess;
  /** Its working directory, where its spill files live. */
  directory: string;
}

export interface GatewayFleet {
  replicas: Replica[];
  configFile: string;
  /**
   * Starts replica `index` again in its directory (after it exited or was killed) and resolves
   * once it listens, on a port of its own; `replicas[index]` is then the new process.
   */
  restart(index: number): Promise<Replica>;
  /** Every replica: SIGTERM, then SIGKILL past 10 s (see `CliProcess.stop`); then the files go. */
  stop(): Promise<void>;
}

const LISTENING = /Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/;

/** The whole config file of a fleet: shared state and store, virtual keys, then the test's own lines. */
export function fleetConfig(options: FleetOptions): string {
  return `server: { host: 127.0.0.1 }
auth: { mode: keys }
admin: { token: ${FLEET_ADMIN_TOKEN} }
state: { ${stateFields(options.redis)}, key_prefix: "${options.keyPrefix ?? 'fleet:'}" }
store: { kind: postgres, url: "${options.postgresUrl}" }
${options.yaml}
`;
}

function stateFields(redis: FleetRedis): string {
  if ('clusterNodes' in redis) return `kind: redis-cluster, nodes: ${JSON.stringify(redis.clusterNodes)}`;
  return 'url' in redis ? `kind: redis, url: "${redis.url}"` : `kind: redis, sentinels: ${JSON.stringify(redis.sentinels)}, master: ${redis.master}`;
}

export async function startGatewayFleet(options: FleetOptions): Promise<GatewayFleet> {
  const root = mkdtempSync(join(tmpdir(), 'switchyard-fleet-'));
  const configFile = join(root, 'config.yaml');
  writeFileSync(configFile, fleetConfig(options));
  const started: Replica[] = [];
  /** Every process started, the replaced ones included (a killed one is stopped at once). */
  const processes: CliProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((process) => process.stop()));
    rmSync(root, { recursive: true, force: true });
  };
  const startReplica = async (index: number, directory: string): Promise<Replica> => {
    const child = startCli(['serve', '--config', configFile, '--port', '0'], { cwd: directory, env: { LOG_FORMAT: 'json' } });
    processes.push(child);
    const [, url] = await child.waitFor(LISTENING, PROCESS_START_TIMEOUT_MS);
    return (started[index] = { url: url!, process: child, directory });
  };
  try {
    const count = options.replicas ?? 2;
    // One at a time: the first runs the migrations, and the machine is small.
    for (let index = 0; index < count; index++) {
      const directory = join(root, options.sharedDirectory ? 'replicas' : `replica-${index}`);
      mkdirSync(directory, { recursive: true });
      await startReplica(index, directory);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { replicas: started, configFile, restart: (index) => startReplica(index, started[index]!.directory), stop };
}
