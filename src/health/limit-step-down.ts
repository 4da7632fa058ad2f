import { QUOTA_NAMES, type QuotaName, type QuotaSnapshot } from './quota-headers.js';
import { WindowCounter } from './window-counter.js';

export interface LimitStepDown {
  quota: QuotaName;
  previousLimit: number;
  limit: number;
  responsesLastMinute: number;
  responsesMinuteBefore: number;
}

/**
 * How many deployments are remembered. Direct `connection/model` requests let callers name
 * models the config never lists, so the set is not bounded by the config; the one observed
 * least recently is forgotten first.
 */
export const MAX_TRACKED_DEPLOYMENTS = 1_000;

const BUCKET_MS = 5_000;
const BUCKETS_PER_MINUTE = 12;

interface Tracked {
  limits: { [Name in QuotaName]?: number };
  responses: WindowCounter;
}

/**
 * Finds a rate limit that steps down while traffic did not fall (docs/health.md): a provider cutting
 * the account's limits (a tier change, an incident) rather than a limit that follows usage
 * down. Traffic is the responses observed in the last minute against the minute before, in
 * 5-second buckets: a step-down is reported when the last minute had at least as many.
 *
 * Kept per deployment, not per connection: OpenAI and Anthropic give limits per model, so two
 * models of one connection would otherwise look like one limit jumping up and down.
 */
export class LimitStepDownDetector {
  /** In the order last observed: the first entry is the next to forget. */
  readonly #tracked = new Map<string, Tracked>();

  /**
   * Takes one response of the deployment (its parsed headers, or undefined when it had none, so
   * that traffic still counts) and returns the limits that stepped down with it. The new limit
   * is remembered either way, so one cut is reported once.
   */
  observe(deployment: string, snapshot: QuotaSnapshot | undefined, nowMs: number): LimitStepDown[] {
    const tracked = this.#touch(deployment);
    tracked.responses.add(nowMs);
    const responsesLastMinute = tracked.responses.count(nowMs, BUCKETS_PER_MINUTE);
    const responsesMinuteBefore = tracked.responses.count(nowMs, BUCKETS_PER_MINUTE, BUCKETS_PER_MINUTE);
    const trafficHeld = responsesLastMinute >= responsesMinuteBefore;

    const stepDowns: LimitStepDown[] = [];
    for (const quota of QUOTA_NAMES) {
      const limit = snapshot?.[quota]?.limit;
      if (limit === undefined) continue;
      const previousLimit = tracked.limits[quota];
      tracked.limits[quota] = limit;
      if (previousLimit !== undefined && limit < previousLimit && trafficHeld) {
        stepDowns.push({ quota, previousLimit, limit, responsesLastMinute, responsesMinuteBefore });
      }
    }
    return stepDowns;
  }

  #touch(deployment: string): Tracked {
    const existing = this.#tracked.get(deployment);
    if (existing !== undefined) {
      this.#tracked.delete(deployment);
      this.#tracked.set(deployment, existing);
      return existing;
    }
    if (this.#tracked.size >= MAX_TRACKED_DEPLOYMENTS) {
      const oldest = this.#tracked.keys().next();
      if (oldest.done !== true) this.#tracked.delete(oldest.value);
    }
    const created: Tracked = { limits: {}, responses: new WindowCounter(2 * BUCKETS_PER_MINUTE, BUCKET_MS) };
    this.#tracked.set(deployment, created);
    return created;
  }
}
