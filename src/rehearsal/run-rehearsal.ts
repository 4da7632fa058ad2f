import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import type { FaultName } from './faults.js';
import { judgeScenario, type JudgedScenario } from './judge-scenario.js';
import { planScenarios, type RehearsalScope } from './plan-scenarios.js';
import { runScenario, type StartScenarioGateway } from './run-scenario.js';

/** Scenarios run at once: most are over in a second, a few wait out a silent target's timeouts or a flapping one. */
const CONCURRENT_SCENARIOS = 32;

/** Faults whose scenarios take longest (timeouts, 30 s of traffic): they start first, so the short ones fill in around them. */
const SLOW_FAULTS: ReadonlySet<FaultName> = new Set(['flapping', 'silent', 'stall', 'slow_first_token']);

export interface RehearsalOptions extends RehearsalScope {
  /** The first-byte goal: a caller waits no longer than this (default 10 s). */
  maxWaitMs: number;
  /** Called as each scenario ends. */
  onProgress?: (done: number, total: number) => void;
}

export interface Rehearsal {
  scenarios: JudgedScenario[];
  failed: number;
  durationMs: number;
}

/**
 * Rehearses the config's routes against the fault catalogue: every scenario on a gateway and a
 * mock of its own (fresh health), many at once, each judged as it ends.
 */
export async function runRehearsal(config: Config, options: RehearsalOptions, startGateway: StartScenarioGateway): Promise<Rehearsal> {
  const started = performance.now();
  const planned = planScenarios(config, options);
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-rehearsal-'));
  const judged: JudgedScenario[] = new Array(planned.length);
  const order = planned.map((_, index) => index).sort((a, b) => Number(SLOW_FAULTS.has(planned[b]!.fault)) - Number(SLOW_FAULTS.has(planned[a]!.fault)));
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let at = next++; at < order.length; at = next++) {
      const index = order[at]!;
      judged[index] = judgeScenario(await runScenario(config, planned[index]!, { directory, index, startGateway }), config, options.maxWaitMs);
      options.onProgress?.(++done, planned.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_SCENARIOS, planned.length) }, worker));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return { scenarios: judged, failed: judged.filter((scenario) => !scenario.pass).length, durationMs: performance.now() - started };
}
