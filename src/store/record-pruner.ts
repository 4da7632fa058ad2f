export interface RecordPrunerOptions {
  /** Deletes up to `limit` of the oldest records created before `olderThanMs`; resolves with how many. */
  prune(options: { olderThanMs: number; limit: number }): Promise<number>;
  retentionDays: number;
  /** Records per pass: small, so each delete holds the store's write lock only briefly. */
  batchSize?: number;
  /** Between passes once nothing older than the retention is left. */
  idleIntervalMs?: number;
  /** Between passes while a backlog remains (a full batch was deleted). */
  backlogIntervalMs?: number;
  onPruned?: (count: number) => void;
  onError?: (error: unknown) => void;
  nowMs?: () => number;
}

const DAY_MS = 86_400_000;

/**
 * Deletes request records older than `store.retention_days` in the background, a small batch per
 * pass, never on the request path (the pass runs on the store thread for a file store); a second
 * one deletes stored Responses API answers past `responses.retention_days`. Spend rows are money
 * and are never pruned. A backlog (a first start on an old store) is worked off
 * in quick passes; after that one pass a minute keeps up.
 */
export class RecordPruner {
  readonly #prune: RecordPrunerOptions['prune'];
  readonly #retentionMs: number;
  readonly #batchSize: number;
  readonly #idleIntervalMs: number;
  readonly #backlogIntervalMs: number;
  readonly #onPruned: (count: number) => void;
  readonly #onError: (error: unknown) => void;
  readonly #nowMs: () => number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  /** Whether the last pass left records older than the retention behind; undefined before the first. */
  #backlog: boolean | undefined;
  #caughtUp: (() => void)[] = [];

  constructor(options: RecordPrunerOptions) {
    this.#prune = options.prune;
    this.#retentionMs = options.retentionDays * DAY_MS;
    this.#batchSize = options.batchSize ?? 500;
    this.#idleIntervalMs = options.idleIntervalMs ?? 60_000;
    this.#backlogIntervalMs = options.backlogIntervalMs ?? 200;
    this.#onPruned = options.onPruned ?? (() => undefined);
    this.#onError = options.onError ?? (() => undefined);
    this.#nowMs = options.nowMs ?? Date.now;
  }

  /** The first pass runs at once: a gateway restarted after a long stop prunes straight away. */
  start(): void {
    this.#schedule(0);
  }

  /** Resolves once a background pass has left nothing older than the retention behind (at once if the last one did). */
  whenCaughtUp(): Promise<void> {
    if (this.#backlog === false) return Promise.resolve();
    return new Promise((resolve) => this.#caughtUp.push(resolve));
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#pass().finally(() => {
        this.#running = undefined;
      });
    }, delayMs);
    // Pruning never keeps the process alive.
    this.#timer.unref();
  }

  async #pass(): Promise<void> {
    let pruned = 0;
    try {
      pruned = await this.#prune({ olderThanMs: this.#nowMs() - this.#retentionMs, limit: this.#batchSize });
    } catch (error) {
      // A store outage: try again later, as any pass would.
      this.#onError(error);
      this.#schedule(this.#idleIntervalMs);
      return;
    }
    if (pruned > 0) this.#onPruned(pruned);
    this.#backlog = pruned >= this.#batchSize;
    if (!this.#backlog) for (const resolve of this.#caughtUp.splice(0)) resolve();
    this.#schedule(this.#backlog ? this.#backlogIntervalMs : this.#idleIntervalMs);
  }
}
