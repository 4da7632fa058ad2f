import { appendFileSync, existsSync, readFileSync, renameSync, unlinkSync } from 'node:fs';

/**
 * A local append-only file of items the store could not take (one JSON document a line), so a
 * store outage — or a shutdown during one — loses nothing. Replaying it is safe to repeat: the
 * writers insert-or-ignore on primary keys, so an item already stored is stored once.
 *
 * A replay works on a claimed copy: `claim()` renames the file to `<path>.replaying` before its
 * items are written, so items appended while the replay awaits the store start a new file, and
 * `release()` deletes only what was replayed. A crash mid-replay leaves the claimed file, which the
 * next run replays first.
 */
export class SpillFile<T> {
  readonly path: string;
  readonly #claimedPath: string;
  /** Items in `path`, appended since the last claim. */
  #appendedCount: number;
  /** Items in the claimed file, being (or waiting to be) replayed. */
  #claimedCount: number;

  constructor(path: string) {
    this.path = path;
    this.#claimedPath = `${path}.replaying`;
    this.#claimedCount = countOrRemove(this.#claimedPath);
    this.#appendedCount = countOrRemove(path);
    // A line torn by a crash mid-append must not swallow the next item appended after it.
    if (existsSync(path) && !readFileSync(path, 'utf8').endsWith('\n')) appendFileSync(path, '\n');
  }

  /** Items waiting in the files. */
  get count(): number {
    return this.#claimedCount + this.#appendedCount;
  }

  /** Synchronous on purpose: it runs only when the store has failed, and must not be lost to a crash. */
  append(items: readonly T[]): void {
    if (items.length === 0) return;
    appendFileSync(this.path, items.map((item) => `${JSON.stringify(item)}\n`).join(''));
    this.#appendedCount += items.length;
  }

  /**
   * The items to replay next, oldest first: the claimed file left by an earlier replay that did
   * not finish, else everything appended so far (renamed away, so later appends start afresh).
   * Empty when nothing waits.
   */
  claim(): T[] {
    if (this.#claimedCount > 0) return readItems(this.#claimedPath);
    if (this.#appendedCount === 0) return [];
    renameSync(this.path, this.#claimedPath);
    this.#claimedCount = this.#appendedCount;
    this.#appendedCount = 0;
    return readItems<T>(this.#claimedPath);
  }

  /** Forgets the claimed items once every one of them is stored; what was appended since stays. */
  release(): void {
    if (existsSync(this.#claimedPath)) unlinkSync(this.#claimedPath);
    this.#claimedCount = 0;
  }

  /** Everything waiting, oldest first (claimed, then appended); a torn line (a crash mid-append) is skipped. */
  read(): T[] {
    return [...readItems<T>(this.#claimedPath), ...readItems<T>(this.path)];
  }
}

/** Whole items in a file; an empty file (or one holding only a torn line) is removed: no litter. */
function countOrRemove(path: string): number {
  const count = readItems(path).length;
  if (count === 0 && existsSync(path)) unlinkSync(path);
  return count;
}

function readItems<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const items: T[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    try {
      items.push(JSON.parse(line) as T);
    } catch {
      // Only a line cut short by a crash can be unparseable; its item was never acknowledged.
    }
  }
  return items;
}
