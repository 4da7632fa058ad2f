import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from './open-database.js';
import { SqliteInserts } from './sqlite-inserts.js';

/** A batch for the store thread (see `InsertThread`), answered by an `InsertReply` with the same id. */
export type InsertMessage = { id: number; table: 'records'; batch: Parameters<SqliteInserts['records']>[0] } | { id: number; table: 'spend'; batch: Parameters<SqliteInserts['spend']>[0] };

/** Errors cross the thread boundary as text: a cloned SqliteError arrives without its message. */
export interface InsertReply {
  id: number;
  error?: string;
}

const port = parentPort;
if (!port) throw new Error('insert-worker runs as a worker thread (see InsertThread)');
// Its own connection to the store file named by the serving thread, which has migrated it.
const inserts = new SqliteInserts(openSqlite(workerData as string));

port.on('message', (message: InsertMessage) => {
  try {
    if (message.table === 'records') inserts.records(message.batch);
    else inserts.spend(message.batch);
    port.postMessage({ id: message.id } satisfies InsertReply);
  } catch (error) {
    port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies InsertReply);
  }
});
