/**
 * Settlements wait this long to go out together, one script call per key (or team) for all of them: under
 * load that is one call for many requests instead of one each. A reservation is held this much
 * longer, which only ever refuses early, never overshoots.
 */
const SETTLE_BATCH_MS = 2;

/** Settlements of one key or team waiting for the next batch: its counters, the script's argument groups, and what to do if Redis does not take them. */
interface SettleBatch {
  keys: readonly string[];
  groups: (string | number)[];
  onFailure: (() => void)[];
}

export interface GateSettleBatchesDeps {
  /** Whether Redis is reachable now: while it is not, a batch fails at once. */
  up(): boolean;
  /** One settle script call on a key's (or team's) counters with every group of theirs. */
  send(keys: readonly string[], groups: readonly (string | number)[]): Promise<unknown>;
}

/** The shared admission gate's settlements, gathered per key or team for `SETTLE_BATCH_MS` and sent in one call each. */
export class GateSettleBatches {
  readonly #deps: GateSettleBatchesDeps;
  readonly #batches = new Map<string, SettleBatch>();
  readonly #sending = new Set<Promise<unknown>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: GateSettleBatchesDeps) {
    this.#deps = deps;
  }

  /** Adds one settlement's argument group for the counters `keys`; `onFailure` runs if Redis does not take its batch. */
  add(keys: readonly string[], group: readonly (string | number)[], onFailure: () => void): void {
    // The first of a subject's keys names it: no two subjects share one.
    let batch = this.#batches.get(keys[0]!);
    if (!batch) {
      batch = { keys, groups: [], onFailure: [] };
      this.#batches.set(keys[0]!, batch);
    }
    batch.groups.push(...group);
    batch.onFailure.push(onFailure);
    this.#timer ??= setTimeout(() => this.sendNow(), SETTLE_BATCH_MS).unref();
  }

  /** Sends every waiting batch now, without waiting for the timer. */
  sendNow(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const batch of this.#batches.values()) {
      const failed = () => {
        for (const onFailure of batch.onFailure) onFailure();
      };
      if (!this.#deps.up()) {
        failed();
        continue;
      }
      const sending = this.#deps
        .send(batch.keys, batch.groups)
        .catch(failed)
        .finally(() => this.#sending.delete(sending));
      this.#sending.add(sending);
    }
    this.#batches.clear();
  }

  /** Resolves once every batch sent so far has been answered (or failed). */
  async sent(): Promise<void> {
    await Promise.allSettled([...this.#sending]);
  }
}
