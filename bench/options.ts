import { parseArgs } from 'node:util';
import { boundedNumber } from './bounded-number.js';

export interface BenchOptions {
  /** Seconds per measured run. */
  durationS: number;
  /** Seconds of discarded load before each measured run, so JIT and connection pools are warm. */
  warmupS: number;
  /** Concurrent connections for the loaded runs (the unloaded one always uses 1). */
  connections: number;
  /** Rounds of every run, each path measured once per scenario per round, the order reversed every other round. */
  rounds: number;
  /** A commit to build in a temporary worktree and measure alongside the working tree. */
  baseline?: string;
  /** An already-built checkout to measure alongside the working tree (what `--baseline` builds, done by hand). */
  baselineDir?: string;
  /** Concurrent slow streams to hold open, one measurement per count; empty: the throughput mode. */
  streams: number[];
  /** How long each of those streams lasts. */
  streamS: number;
  /** The mock's pause between a stream's chunks. */
  chunkMs: number;
  /** Pin the measured server and the load to separate CPUs (when there are two). */
  pin: boolean;
  /** Run the working tree's gateway under `--cpu-prof` and summarise its hottest functions. */
  profileGateway: boolean;
  /** Expired records seeded into the gateway's store, so the retention pruner deletes throughout the run. */
  pruneBacklog: number;
  /** Where the results go as JSON (default: bench/results/latest.json or latest-streams.json). */
  jsonFile?: string;
}

export const usage = `usage: npm run bench -- [options]

  --duration S         seconds per measurement (default 5, from 0.5 to 60)
  --warmup S           seconds of discarded warm-up before each measurement (default 1, at most 10)
  --connections N      connections for the loaded runs (default 32, at most 256)
  --rounds N           rounds of every run, order reversed every other round (default 5 with a
                       baseline, else 1; at most 20)
  --baseline REF       build REF (a commit, a branch) in a temporary git worktree and measure its
                       gateways alongside the working tree's, alternately, in every round
  --baseline-dir DIR   the same with a checkout that is already built (DIR/dist/src/cli/main.js)
  --streams N[,N…]     the streams mode: N slow streams held open at once through the floor and
                       the gateway, for each N (1 to 20000)
  --stream-s S         how long each of those streams lasts (default 10, 1 to 60)
  --chunk-ms N         the mock's pause between a stream's chunks (default 50, 5 to 1000)
  --unpinned           do not pin the measured server and the load to separate CPUs
  --profile-gateway    run the working tree's gateway under --cpu-prof and print its top self-time
                       functions (the profiler slows it: its figures are then not comparable)
  --prune-backlog N    seed the gateway's store with N records past the retention (default 0, at most
                       1000000), so the background pruner deletes them while the load runs
  --json FILE          write the results there (default bench/results/latest.json, or
                       latest-streams.json in the streams mode)`;

/** Parses argv; throws with the usage text on anything out of bounds, so every run stays bounded. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '32' },
      rounds: { type: 'string' },
      baseline: { type: 'string' },
      'baseline-dir': { type: 'string' },
      streams: { type: 'string' },
      'stream-s': { type: 'string', default: '10' },
      'chunk-ms': { type: 'string', default: '50' },
      unpinned: { type: 'boolean', default: false },
      'profile-gateway': { type: 'boolean', default: false },
      'prune-backlog': { type: 'string', default: '0' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  try {
    if (values.baseline !== undefined && values['baseline-dir'] !== undefined) throw new Error('give --baseline or --baseline-dir, not both');
    const hasBaseline = values.baseline !== undefined || values['baseline-dir'] !== undefined;
    return {
      durationS: boundedNumber('--duration', values.duration, 0.5, 60, false),
      warmupS: boundedNumber('--warmup', values.warmup, 0, 10, false),
      connections: boundedNumber('--connections', values.connections, 1, 256, true),
      rounds: boundedNumber('--rounds', values.rounds ?? (hasBaseline ? '5' : '1'), 1, 20, true),
      ...(values.baseline === undefined ? {} : { baseline: values.baseline }),
      ...(values['baseline-dir'] === undefined ? {} : { baselineDir: values['baseline-dir'] }),
      streams: values.streams === undefined ? [] : values.streams.split(',').map((count) => boundedNumber('--streams', count, 1, 20_000, true)),
      streamS: boundedNumber('--stream-s', values['stream-s'], 1, 60, false),
      chunkMs: boundedNumber('--chunk-ms', values['chunk-ms'], 5, 1_000, true),
      pin: !values.unpinned,
      profileGateway: values['profile-gateway'],
      pruneBacklog: boundedNumber('--prune-backlog', values['prune-backlog'], 0, 1_000_000, true),
      ...(values.json === undefined ? {} : { jsonFile: values.json }),
    };
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  }
}
