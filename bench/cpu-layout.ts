/**
 * Which CPUs the bench's processes run on. With two or more CPUs (and `taskset`), the server
 * under measurement — the bare proxy, a gateway — gets the last CPU this process may use, and
 * everything else (the load generator in this process, the mock, redis-server) the others. One
 * load runs at a time, so the server being measured has its core to itself: its latency is not
 * queueing behind the load generator, and its CPU time per request is not inflated by sharing
 * caches with it. The mock and Redis stand for upstreams on other machines, so they share the
 * load generator's side rather than the gateway's.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface CpuLayout {
  /** `taskset -c` list for the server under measurement; undefined when nothing is pinned. */
  serverCpus?: string;
  /** The rest: this process (the load generator), the mock, redis-server. */
  loadCpus?: string;
  /** One line saying what was chosen and why. */
  description: string;
}

/** Decides the layout and pins this process (all its threads) to the load side. */
export function chooseCpuLayout(pin: boolean): CpuLayout {
  const allowed = allowedCpus();
  const unpinned = (why: string): CpuLayout => ({ description: `not pinned: ${why}; every process may run on any of CPUs ${allowed.join(',')}` });
  if (!pin) return unpinned('--unpinned');
  if (allowed.length < 2) return unpinned(`this process may use ${allowed.length} CPU only`);
  if (!hasTaskset()) return unpinned('taskset (util-linux) is not installed');
  const serverCpus = String(allowed.at(-1));
  const loadCpus = allowed.slice(0, -1).join(',');
  // -a: every thread this process has now (libuv's pool, V8's); threads started later inherit it.
  execFileSync('taskset', ['-a', '-p', '-c', loadCpus, String(process.pid)], { stdio: 'ignore' });
  return {
    serverCpus,
    loadCpus,
    description: `pinned: the server under measurement on CPU ${serverCpus}; the load generator, the mock and redis-server on CPU ${loadCpus}`,
  };
}

/** `command args` under `taskset -c cpus` when `cpus` is set; taskset execs the command, so the pid is the command's. */
export function pinnedCommand(cpus: string | undefined, command: string, args: readonly string[]): { command: string; args: string[] } {
  return cpus === undefined ? { command, args: [...args] } : { command: 'taskset', args: ['-c', cpus, command, ...args] };
}

function allowedCpus(): number[] {
  const match = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  if (match === null) return [];
  return match[1]!.split(',').flatMap((range) => {
    const [first, last] = range.split('-').map(Number) as [number, number | undefined];
    return Array.from({ length: (last ?? first) - first + 1 }, (_, index) => first + index);
  });
}

function hasTaskset(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v taskset'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
