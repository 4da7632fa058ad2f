import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** Seconds per measured run. */
  durationS: number;
  /** Seconds of discarded load before each measured run, so JIT and connection pools are warm. */
  warmupS: number;
  /** Concurrent connections for the throughput runs (the latency runs always use 1). */
  connections: number;
  /** Run the gateway child under `--cpu-prof` and summarise its hottest functions. */
  profileGateway: boolean;
  /** Expired records seeded into the gateway's store, so the retention pruner deletes throughout the run. */
  pruneBacklog: number;
}

export const usage = `usage: npm run bench -- [--duration S] [--warmup S] [--connections N] [--profile-gateway] [--prune-backlog N]

  --duration S         seconds per measurement (default 5, at most 60)
  --warmup S           seconds of discarded warm-up before each measurement (default 1, at most 10)
  --connections N      connections for the throughput runs (default 32, at most 256)
  --profile-gateway    run the gateway under --cpu-prof and print its top self-time functions
                       (the profiler slows the gateway: its figures are then not comparable)
  --prune-backlog N    seed the gateway's store with N records past the retention (default 0, at most
                       1000000), so the background pruner deletes them while the load runs`;

/** Parses argv; throws with the usage text on anything out of bounds, so every run stays bounded. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '1' },
      connections: { type: 'string', default: '32' },
      'profile-gateway': { type: 'boolean', default: false },
      'prune-backlog': { type: 'string', default: '0' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  return {
    durationS: bounded('--duration', values.duration, 1, 60),
    warmupS: bounded('--warmup', values.warmup, 0, 10),
    connections: Math.round(bounded('--connections', values.connections, 1, 256)),
    profileGateway: values['profile-gateway'],
    pruneBacklog: Math.round(bounded('--prune-backlog', values['prune-backlog'], 0, 1_000_000)),
  };
}

function bounded(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new Error(`${flag} must be a number from ${min} to ${max}, got "${text}"\n\n${usage}`);
  }
  return value;
}
