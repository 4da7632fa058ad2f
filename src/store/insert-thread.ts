import { Worker } from 'node:worker_threads';
import type { SpendRow } from '../ledger/spend-row.js';
import type { RequestRecord } from '../records/request-record.js';
import type { InsertMessage, InsertReply } from './insert-worker.js';
import type { StoreInserts } from './store-inserts.js';

interface Pending {
  resolve(): void;
  reject(error: Error): void;
}

/**
 * Runs the batched inserts on a worker thread with its own connection to the SQLite file, so
 * building statements and writing pages cost the serving thread nothing but handing the batch
 * over (WAL lets the serving thread read meanwhile). If the thread dies, the writes in flight fail
 * — the batch writers keep those items and retry — and the next insert starts a new thread.
 */
export class InsertThread implements StoreInserts {
  readonly #path: string;
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | undefined;
  #nextId = 0;

  /** `path`: an SQLite file, already migrated (an in-memory database exists only on the connection that opened it). */
  constructor(path: string) {
    this.#path = path;
    this.#worker = this.#start();
  }

  records(batch: readonly RequestRecord[]): Promise<void> {
    return this.#insert((id) => ({ id, table: 'records', batch }));
  }

  spend(rows: readonly SpendRow[]): Promise<void> {
    return this.#insert((id) => ({ id, table: 'spend', batch: rows }));
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #insert(message: (id: number) => InsertMessage): Promise<void> {
    const worker = (this.#worker ??= this.#start());
    const id = this.#nextId++;
    return new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage(message(id));
    });
  }

  #start(): Worker {
    const worker = new Worker(workerScript(), { workerData: this.#path });
    // Pending writes keep the process alive through their promises' owners, not through the thread.
    worker.unref();
    worker.on('message', (reply: InsertReply) => {
      const pending = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (reply.error !== undefined) pending?.reject(new Error(`the store refused the batch: ${reply.error}`));
      else pending?.resolve();
    });
    const stopped = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on('error', (error) => stopped(new Error(`the store thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => stopped(new Error(`the store thread exited (code ${code})`)));
    return worker;
  }
}

/**
 * The worker runs compiled JavaScript. Tests run these sources as TypeScript; `npm test` builds
 * first, so the compiled twin is in dist/.
 */
function workerScript(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL(here.replace('/src/store/insert-thread.ts', '/dist/src/store/insert-worker.js')) : new URL('./insert-worker.js', here);
}
