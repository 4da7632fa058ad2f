import { setTimeout as sleep } from 'node:timers/promises';
import { gatewayState } from './bench-key.js';

/** Each replica's `/readyz` is read this often while the soak runs. */
const pollMs = 500;

/**
 * Logs every change of a replica's shared-state health (`shared`, `degraded`, or `unreachable`
 * when `/readyz` does not answer), so each fault's degraded window shows beside its start and end.
 */
export function watchReplicaStates(replicaUrls: () => readonly string[], log: (line: string) => void): { stop(): Promise<void> } {
  let stopping = false;
  // Each replica's URL is read at every look: a replica restarted by a fault listens on a new port.
  const loops = replicaUrls().map(async (_, index) => {
    let last: string | undefined;
    while (!stopping) {
      const state = await gatewayState(replicaUrls()[index]!).catch(() => 'unreachable');
      if (last !== undefined && state !== last && !stopping) log(`  replica ${index + 1}: state ${last} → ${state}`);
      last = state;
      await sleep(pollMs);
    }
  });
  return {
    async stop() {
      stopping = true;
      await Promise.all(loops);
    },
  };
}
