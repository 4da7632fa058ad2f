import { parseArgs } from 'node:util';
import { boundedNumber } from './bounded-number.js';
import { faultNames, type FaultName } from './soak-schedule.js';

export interface SoakOptions {
  /** Seconds of load; the faults are spread over it. */
  durationS: number;
  /** Requests sent per second, open loop: on schedule whether or not earlier ones were answered. */
  rps: number;
  /** `switchyard serve` processes on one config, the load spread over them round robin. */
  replicas: number;
  /** The faults to inject, in this order. */
  faults: FaultName[];
}

export const soakUsage = `usage: npm run bench:soak -- [--duration S] [--rps N] [--replicas N] [--faults LIST]

  --duration S    seconds of load (default 300, 10 to 3600); the faults are spread over it
  --rps N         requests per second, open loop, round robin over the replicas (default 200, 1 to 1000)
  --replicas N    switchyard serve processes on one config (default 3, 1 to 5)
  --faults LIST   comma-separated, run in this order (default: all of them, in this order)
                    redis-hang      SIGSTOP the Redis primary, SIGCONT after 10 s
                    redis-kill      SIGKILL the Redis primary; restart it 15 s later
                    postgres-stop   stop PostgreSQL (pg_ctl -m fast), start it 20 s later
                    postgres-hang   SIGSTOP PostgreSQL and its backends, SIGCONT after 10 s
                    postgres-stop-kill
                                    take a replica out of the load, stop PostgreSQL (pg_ctl -m immediate),
                                    SIGKILL that replica once its answers are spilled; 20 s later start
                                    PostgreSQL and the replica again (the replicas share one spill directory)
                  or "none" for load alone`;

/** Parses argv; throws with the usage text on anything out of bounds, so every run stays bounded. */
export function parseSoakOptions(argv: readonly string[]): SoakOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string', default: '300' },
      rps: { type: 'string', default: '200' },
      replicas: { type: 'string', default: '3' },
      faults: { type: 'string', default: faultNames.join(',') },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  try {
    return {
      durationS: boundedNumber('--duration', values.duration, 10, 3_600, false),
      rps: boundedNumber('--rps', values.rps, 1, 1_000, false),
      replicas: boundedNumber('--replicas', values.replicas, 1, 5, true),
      faults: parseFaults(values.faults),
    };
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n\n${soakUsage}`);
  }
}

function parseFaults(text: string): FaultName[] {
  if (text.trim() === 'none') return [];
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(faultNames as readonly string[]).includes(name)) throw new Error(`--faults: unknown fault "${name}" (known: ${faultNames.join(', ')}, or none)`);
  }
  return names as FaultName[];
}
