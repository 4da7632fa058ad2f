/**
 * Starts what the load is measured through: the bare proxy (the floor) and, for each build (the
 * working tree, and the baseline when there is one), a keyed gateway with an SQLite file store
 * and one with its state in a redis-server of its own. Each hop is pinned to the server CPU;
 * the mock (started by the caller, shared by every path) and redis-server are on the load side.
 */
import { REDIS_SERVER, startRedisServer, type RedisServer } from '../test/support/redis-process.js';
import { createBenchKey, gatewayState } from './bench-key.js';
import { startChildServer, startServeCli, type ChildServer } from './child-server.js';
import type { CpuLayout } from './cpu-layout.js';
import { writeGatewayConfig, type BenchState, type GatewayConfigFile } from './gateway-config.js';
import { BenchAbort, type BenchPath, type ProcessRef } from './measure.js';
import { redisCommandsDuring } from './redis-info.js';
import { pathKinds, scenarioNamed, type Answer, type PathKind } from './scenarios.js';
import { seedExpiredRecords } from './seed-expired-records.js';
import { verifyPath } from './verify.js';

/** A built Switchyard to measure. */
export interface GatewayBuild {
  build: 'working' | 'baseline';
  /** What path names carry after `@` (nothing for the working tree). */
  label: string;
  /** Its `dist/src/cli/main.js`. */
  cliPath: string;
}

export interface ServerSetOptions {
  layout: CpuLayout;
  mock: ChildServer;
  /** The answers the gateways need a route for. */
  answers: readonly Answer[];
  kinds: readonly PathKind[];
  /** The working tree first; a baseline after it. */
  builds: readonly GatewayBuild[];
  /** For the streams mode: gateways' `max_in_flight` and the floor's upstream pool, above its concurrency. */
  concurrency?: number;
  /** `node` flags for the working tree's memory-state gateway (`--cpu-prof`). */
  profileFlags?: readonly string[];
  /** Expired records seeded into the working tree's memory-state gateway's store (`--prune-backlog`). */
  pruneBacklog?: number;
}

export interface ServerSet {
  /** In report order: direct, the floor, then each gateway kind, the baseline's before the working tree's. */
  paths: BenchPath[];
  /** The working tree's memory-state gateway's store (the one `--prune-backlog` seeds). */
  workingStorePath?: string;
  /** Stops the hops (the caller's mock stays), redis-servers and config directories. */
  stop(): Promise<void>;
}

export async function startServerSet(options: ServerSetOptions): Promise<ServerSet> {
  const { layout, mock } = options;
  const children: ChildServer[] = [];
  const configs: GatewayConfigFile[] = [];
  const redisServers: RedisServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(children.map((child) => child.stop()));
    for (const config of configs) config.remove();
    await Promise.all(redisServers.map((redis) => redis.close()));
  };
  const mockRef: ProcessRef = { name: mock.name, pid: mock.pid };
  const paths: BenchPath[] = [];
  let workingStorePath: string | undefined;
  try {
    for (const kind of pathKinds.filter((wanted) => options.kinds.includes(wanted))) {
      if (kind === 'direct') {
        paths.push({ name: 'direct', kind, build: 'working', url: mock.url, headers: {}, server: mockRef });
        continue;
      }
      if (kind === 'bare-proxy') {
        const poolArgs = options.concurrency === undefined ? [] : [String(options.concurrency)];
        const proxy = await startChildServer('bare proxy', 'bare-proxy.js', [mock.url, ...poolArgs], [], layout.serverCpus);
        children.push(proxy);
        paths.push({ name: 'bare-proxy', kind, build: 'working', url: proxy.url, headers: {}, server: { name: proxy.name, pid: proxy.pid } });
        continue;
      }
      if (kind === 'gateway-redis' && REDIS_SERVER === undefined) {
        console.log('\n*** SKIPPING the gateways with state.kind: redis: redis-server is not installed (apt-get install -y redis-server). ***\n');
        continue;
      }
      // The baseline's first, so a reader sees old → new.
      for (const build of [...options.builds].reverse()) {
        if (kind === 'gateway-translated' && build.build !== 'working') continue;
        const name = build.build === 'working' ? kind : `${kind}@${build.label}`;
        let redis: RedisServer | undefined;
        let state: BenchState = { kind: 'memory' };
        if (kind === 'gateway-redis') {
          redis = await startRedisServer();
          redisServers.push(redis);
          state = { kind: 'redis', url: redis.url };
        }
        const config = writeGatewayConfig({
          mockUrl: mock.url,
          answers: options.answers,
          state,
          ...(options.concurrency === undefined ? {} : { maxInFlight: options.concurrency }),
          ...(kind === 'gateway-translated' ? { dialect: 'anthropic' as const } : {}),
        });
        configs.push(config);
        const measuredForProfile = build.build === 'working' && kind === 'gateway';
        if (measuredForProfile) {
          workingStorePath = config.storePath;
          if ((options.pruneBacklog ?? 0) > 0) {
            console.log(`seeding ${options.pruneBacklog} records past the retention, for the pruner to delete during the run…`);
            await seedExpiredRecords(config.storePath, options.pruneBacklog!);
          }
        }
        const nodeFlags = measuredForProfile ? (options.profileFlags ?? []) : [];
        const gateway = await startServeCli(name, build.cliPath, config.file, { nodeFlags, cpus: layout.serverCpus });
        children.push(gateway);
        const path: BenchPath = {
          name,
          kind,
          build: build.build,
          url: gateway.url,
          headers: { authorization: `Bearer ${await createBenchKey(gateway.url)}` },
          server: { name, pid: gateway.pid },
        };
        if (redis !== undefined) {
          const usesRedis = await checkRedisState(path, redis.url);
          if (usesRedis === false) {
            console.log(`\n*** ${name} is not measured: this build keeps no per-request state in Redis (its state.kind: redis is not on the request path). ***\n`);
            await gateway.stop();
            continue;
          }
          path.redis = usesRedis;
        }
        paths.push(path);
      }
    }
    return { paths, ...(workingStorePath === undefined ? {} : { workingStorePath }), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Whether a Redis-state gateway really uses Redis for each request: `/readyz` must say `shared`
 * when it reports a state at all (a gateway that fell back to local state would pass memory
 * figures off as Redis ones), and one request must reach Redis (a build from before Redis state
 * accepts the setting and ignores it). Returns the redis-server to read CPU from, or false.
 */
async function checkRedisState(path: BenchPath, redisUrl: string): Promise<ProcessRef | false> {
  const state = await gatewayState(path.url);
  if (state !== 'unknown' && state !== 'shared') throw new BenchAbort(`${path.name} says its state is "${state}", not "shared": is ${redisUrl} answering?`);
  const scenario = scenarioNamed('non-streaming');
  const { pid, commands } = await redisCommandsDuring(redisUrl, async () => {
    const { problems } = await verifyPath(path.url, path.kind, scenario.answer, scenario.stream, path.headers);
    if (problems.length > 0) throw new BenchAbort(`${path.name}: ${problems.join('; ')}`);
  });
  if (commands === 0) return false;
  return { name: `redis-server of ${path.name}`, pid };
}
