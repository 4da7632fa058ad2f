import { formatTable } from '../src/cli/format-table.js';
import { LatencyRecorder } from './latency-recorder.js';
import type { RequestOutcome } from './soak-load.js';
import type { Phase } from './soak-schedule.js';

/** The soak's counts for one phase, or for the whole run. */
export class Tally {
  sent = 0;
  answered = 0;
  readonly errors = new Map<string, number>();
  /** Apart, since a stream's ~160 ms of paced chunks would make one distribution of both bimodal. */
  readonly latency = { plain: new LatencyRecorder(), stream: new LatencyRecorder() };
  /** The longest request, answered or not: the worst stall a caller saw. */
  maxLatencyMs = 0;
  maxGapMs = 0;

  add(outcome: RequestOutcome): void {
    this.sent += 1;
    if (outcome.error === undefined) this.answered += 1;
    else this.errors.set(outcome.error, (this.errors.get(outcome.error) ?? 0) + 1);
    this.latency[outcome.stream ? 'stream' : 'plain'].record(outcome.latencyMs);
    this.maxLatencyMs = Math.max(this.maxLatencyMs, outcome.latencyMs);
    this.maxGapMs = Math.max(this.maxGapMs, outcome.maxGapMs);
  }

  get errorCount(): number {
    return this.sent - this.answered;
  }

  /** p50 and p99 of one kind of request, ms (NaN when there was none). */
  percentiles(kind: 'plain' | 'stream'): { p50Ms: number; p99Ms: number } {
    const [p50Ms, p99Ms] = this.latency[kind].summarise([0.5, 0.99]).percentilesMs as [number, number];
    return { p50Ms, p99Ms };
  }

  /** `503 gateway_unavailable ×3, stream cut before [DONE] ×1`, most frequent first. */
  errorSummary(): string {
    if (this.errors.size === 0) return 'none';
    return [...this.errors].sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind} ×${count}`).join(', ');
  }
}

/** One line for a phase as it ends (requests still in flight are not in it yet). */
export function phaseLine(phase: Phase, tally: Tally, inFlight: number): string {
  const pending = inFlight > 0 ? `, ${inFlight} still in flight` : '';
  const kind = (name: 'plain' | 'stream') => {
    const { p50Ms, p99Ms } = tally.percentiles(name);
    return `${ms(p50Ms)} / ${ms(p99Ms)}`;
  };
  return `phase "${phase.name}" (${phase.fromS.toFixed(1)}–${phase.toS.toFixed(1)} s): ${tally.answered} of ${tally.sent} answered${pending}; p50 / p99 plain ${kind('plain')}, streamed ${kind('stream')}; longest ${ms(tally.maxLatencyMs)}, longest chunk gap ${ms(tally.maxGapMs)}; errors: ${tally.errorSummary()}`;
}

/** The closing table: one row per phase and one for the whole run. */
export function phaseTable(phases: readonly Phase[], tallies: readonly Tally[], total: Tally): string {
  const row = (name: string, span: string, tally: Tally) => {
    const plain = tally.percentiles('plain');
    const stream = tally.percentiles('stream');
    const latencies = [plain.p50Ms, plain.p99Ms, stream.p50Ms, stream.p99Ms].map(ms);
    return [name, span, String(tally.sent), String(tally.answered), String(tally.errorCount), ...latencies, ms(tally.maxLatencyMs), ms(tally.maxGapMs)];
  };
  return formatTable(
    ['phase', 'seconds', 'sent', 'answered', 'errors', 'plain p50', 'plain p99', 'stream p50', 'stream p99', 'longest', 'longest chunk gap'],
    [...phases.map((phase, index) => row(phase.name, `${phase.fromS.toFixed(1)}–${phase.toS.toFixed(1)}`, tallies[index]!)), row('whole run', '', total)],
  );
}

/** A duration in seconds, one decimal: for the log's lines about faults. */
export function seconds(ms: number): string {
  return `${(ms / 1_000).toFixed(1)} s`;
}

export function ms(value: number): string {
  if (Number.isNaN(value)) return '–';
  return value >= 1_000 ? `${(value / 1_000).toFixed(2)} s` : `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}
