import { Worker } from 'node:worker_threads';
import type { SpendRow } from '../core/spend-row.js';
import type { RequestRecord } from '../core/request-record.js';
import type { AuditedChange, AuditedResult } from './audited-writes.js';
import { StoreUnavailableError } from './store-unavailable-error.js';
import type { StoreWrites } from './store-writes.js';
import type { QueryAnswer, StoreCall, StoreReady, StoreReply, StoreRequest } from './store-worker.js';

interface Pending {
  resolve(result: StoreReply['result']): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** Longest any store call may take before its caller is told the store is unavailable. */
const STORE_CALL_TIMEOUT_MS = 1_000;

/**
 * Every call to an SQLite file store — queries, batched inserts, pruning — runs on this worker
 * thread, with its own connection: the serving thread only hands messages over, so a locked or
 * slow store can never stall it. Each call is bounded: unanswered after `callTimeoutMs`, it
 * rejects with `StoreUnavailableError` (and the thread skips it if it has not started yet). If
 * the thread dies, the calls in flight fail and the next call starts a new thread.
 */
export class StoreThread implements StoreWrites {
  readonly #path: string;
  readonly #callTimeoutMs: number;
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | undefined;
  #nextId = 0;
  #closed = false;
  /** Settles when the current thread has opened its connection, or exited before it could. */
  #opened: Promise<void> = Promise.resolve();

  /** `path`: an SQLite file, already migrated (an in-memory database exists only on the connection that opened it). */
  constructor(path: string, options: { callTimeoutMs?: number } = {}) {
    this.#path = path;
    this.#callTimeoutMs = options.callTimeoutMs ?? STORE_CALL_TIMEOUT_MS;
    this.#worker = this.#start();
  }

  async records(batch: readonly RequestRecord[]): Promise<void> {
    await this.#call({ kind: 'records', lines: jsonLines(batch) });
  }

  async spend(rows: readonly SpendRow[]): Promise<void> {
    await this.#call({ kind: 'spend', lines: jsonLines(rows) });
  }

  async pruneRecords(options: { olderThanMs: number; limit: number }): Promise<number> {
    return (await this.#call({ kind: 'prune', ...options })) as number;
  }

  async audited(change: AuditedChange): Promise<AuditedResult> {
    return (await this.#call({ kind: 'audited', change })) as AuditedResult;
  }

  /** One SQL statement with its parameters (kysely compiles them; see `threadDialect`). */
  async query(sql: string, parameters: readonly unknown[]): Promise<QueryAnswer> {
    return (await this.#call({ kind: 'query', sql, parameters })) as QueryAnswer;
  }

  /**
   * Resolves once the thread has opened its connection (rejects if it cannot): awaited at start,
   * so the first requests do not spend their deadline waiting for the thread to boot.
   */
  ready(): Promise<void> {
    this.#worker ??= this.#start();
    return this.#opened;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #call(call: StoreCall): Promise<StoreReply['result']> {
    if (this.#closed) return Promise.reject(new StoreUnavailableError('the store is closed'));
    const worker = (this.#worker ??= this.#start());
    const id = this.#nextId++;
    const deadlineAtMs = Date.now() + this.#callTimeoutMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new StoreUnavailableError(`the store did not answer within ${this.#callTimeoutMs} ms`));
      }, this.#callTimeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      worker.postMessage({ ...call, id, deadlineAtMs } satisfies StoreRequest);
    });
  }

  #settle(id: number, settle: (pending: Pending) => void): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    settle(pending);
  }

  #start(): Worker {
    const worker = new Worker(workerScript(), { workerData: this.#path });
    // Pending calls keep the process alive through their timers and their callers, not through the thread.
    worker.unref();
    this.#opened = new Promise((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('exit', (code) => reject(new StoreUnavailableError(`the store thread exited (code ${code}) before opening the store`)));
    });
    // Only `ready()` reports this; a call made meanwhile fails on its own.
    this.#opened.catch(() => undefined);
    worker.on('message', (reply: StoreReady | StoreReply) => {
      if ('ready' in reply) return;
      this.#settle(reply.id, (pending) => {
        if (reply.error !== undefined) pending.reject(new StoreUnavailableError(`the store refused the call: ${reply.error}`));
        else pending.resolve(reply.result);
      });
    });
    const stopped = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const id of [...this.#pending.keys()]) this.#settle(id, (pending) => pending.reject(error));
    };
    worker.on('error', (error) => stopped(new StoreUnavailableError(`the store thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => stopped(new StoreUnavailableError(`the store thread exited (code ${code})`)));
    return worker;
  }
}

/**
 * The worker runs compiled JavaScript. Tests run these sources as TypeScript; `npm test` builds
 * first, so the compiled twin is in dist/.
 */
function workerScript(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL(here.replace('/src/store/store-thread.ts', '/dist/src/store/store-worker.js')) : new URL('./store-worker.js', here);
}

/** One JSON text per item, a line each (the store thread's hand-over form). */
function jsonLines(items: readonly unknown[]): string {
  return items.map((item) => JSON.stringify(item)).join('\n');
}
