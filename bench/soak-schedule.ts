/** When the fault soak injects each fault and recovers from it, and the phases that splits the run into. */

export const faultNames = ['redis-hang', 'redis-kill', 'postgres-stop', 'postgres-hang', 'postgres-stop-kill'] as const;
export type FaultName = (typeof faultNames)[number];

/** How long each fault holds at full length; the kill holds until the killed primary is restarted. */
const fullHoldS: Record<FaultName, number> = { 'redis-hang': 10, 'redis-kill': 15, 'postgres-stop': 20, 'postgres-hang': 10, 'postgres-stop-kill': 20 };

/** The share of the run before the first fault: the warm-up, then the baseline every fault phase is read against. */
const baselineShare = 0.1;

/** The first seconds meet cold replicas (JIT, connection pools): their own phase, so the baseline is steady state. */
const warmUpS = 5;

/** A fault holds at most this share of its slot, so most of the slot shows the recovery. */
const holdShareOfSlot = 0.3;

/** Injecting a fault, then recovering from it; what each did is logged as it happens. */
export interface FaultActions {
  begin(): Promise<void>;
  end(): Promise<void>;
}

export interface ScheduledFault {
  name: FaultName;
  /** Seconds after the load started. */
  startS: number;
  endS: number;
}

export interface Phase {
  /** `warm-up`, `baseline`, a fault's name while it holds, `after <fault>` until the next one. */
  name: string;
  fromS: number;
  toS: number;
}

/** After the baseline, the run is cut into one slot per fault; each fault starts its slot. */
export function faultSchedule(durationS: number, faults: readonly FaultName[]): ScheduledFault[] {
  const baselineS = durationS * baselineShare;
  const slotS = (durationS - baselineS) / Math.max(1, faults.length);
  return faults.map((name, index) => {
    const startS = baselineS + index * slotS;
    return { name, startS, endS: startS + Math.min(fullHoldS[name], slotS * holdShareOfSlot) };
  });
}

export function phasesOf(durationS: number, schedule: readonly ScheduledFault[]): Phase[] {
  const baselineEndS = schedule[0]?.startS ?? durationS;
  const warmUpEndS = Math.min(warmUpS, baselineEndS / 2);
  const phases: Phase[] = [
    { name: 'warm-up', fromS: 0, toS: warmUpEndS },
    { name: 'baseline', fromS: warmUpEndS, toS: baselineEndS },
  ];
  schedule.forEach((fault, index) => {
    phases.push({ name: fault.name, fromS: fault.startS, toS: fault.endS });
    phases.push({ name: `after ${fault.name}`, fromS: fault.endS, toS: schedule[index + 1]?.startS ?? durationS });
  });
  return phases;
}

/** The phase a request sent `atS` into the run belongs to (the last one for anything past the end). */
export function phaseIndexAt(phases: readonly Phase[], atS: number): number {
  const index = phases.findIndex((phase) => atS < phase.toS);
  return index === -1 ? phases.length - 1 : index;
}
