import { renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * A lock that lives exactly as long as the process holding it: SQLite's exclusive lock (a POSIX
 * advisory lock, taken through a well-kept library the gateway already ships) on an empty file of
 * its own. The kernel drops it the moment its process ends, however it ends — a crash, SIGKILL,
 * a node taken away — so "the lock is free" means "its owner is gone", at once and with no clock:
 * no staleness window in which a live process that stalled looks dead, and none in which a dead
 * one looks alive. Other connections in the same process see it held too (SQLite tracks its own
 * locks per file), so one test process can stand in for several gateways.
 *
 * The file is never opened any other way: closing any descriptor of a file drops every POSIX lock
 * the process holds on it, and SQLite alone knows to keep its descriptors open while locked.
 */
export interface HeldLock {
  /** Removes the lock's file, then lets the lock go; idempotent. */
  release(): void;
}

/**
 * Takes the lock at `path` for this process, a file nobody else uses: it is made and locked under
 * a temporary name, then renamed into place, so no one ever finds it unlocked while its owner lives.
 */
export function holdLock(path: string): HeldLock {
  const pendingPath = `${path}.new`;
  const connection = lockedConnection(pendingPath, { create: true });
  try {
    renameSync(pendingPath, path);
  } catch (error) {
    connection.close();
    rmSync(pendingPath, { force: true });
    throw error;
  }
  return heldLock(connection, path);
}

/**
 * The lock at `path` when its owner is gone (now held by this process, until `release`), `held`
 * while its owner lives, `absent` when there is no such file (anymore).
 */
export function takeLockIfFree(path: string): HeldLock | 'held' | 'absent' {
  try {
    return heldLock(lockedConnection(path, { create: false }), path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'held';
    if (code === 'SQLITE_CANTOPEN') return 'absent';
    throw error;
  }
}

/** A connection holding the exclusive lock on `path`; throws SQLITE_BUSY at once when another holds it. */
function lockedConnection(path: string, options: { create: boolean }): Database.Database {
  const connection = new Database(path, { timeout: 0, fileMustExist: !options.create });
  try {
    // The journal in memory: no `-journal` file beside the lock. The transaction is never
    // committed, so nothing is ever written: it is there to hold the lock.
    connection.pragma('journal_mode = MEMORY');
    connection.exec('BEGIN EXCLUSIVE');
    return connection;
  } catch (error) {
    connection.close();
    throw error;
  }
}

function heldLock(connection: Database.Database, path: string): HeldLock {
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // Removed while still locked: whoever opens it from now on finds it gone, not free.
      rmSync(path, { force: true });
      connection.close();
    },
  };
}
