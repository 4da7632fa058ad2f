import { appendFileSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';

/** What a spill file holds: request records, spend rows or audit events (also the metric label). */
export type SpillKind = 'records' | 'spend' | 'audit';

/** What a spill file needs of the directory it lives in (`SpillDirectory`). */
export interface SpillFileHome {
  /** The file this process appends items of `kind` to. */
  appendPathOf(kind: SpillKind): string;
  /** A new name, this process's own, for a file of `kind` waiting to be replayed. */
  nextReplayPathOf(kind: SpillKind): string;
  /** Called before this process's first spill file is made: the lock that says its files are taken. */
  holdLock(): void;
  /** Takes over the files of processes that are gone (into their kinds' files), before a replay; never throws. */
  adoptOrphansBeforeReplay(): void;
}

/**
 * This process's items of one kind that the store could not take (one JSON document a line), so
 * a store outage — or a shutdown during one — loses nothing. Replaying is safe to repeat: the
 * writers insert-or-ignore on primary keys, so an item already stored is stored once.
 *
 * New items are appended to one file. A replay works on claimed files: `claim()` renames the
 * appended file to a replay file before its items are written, so items appended while the replay
 * awaits the store start a new file, and `release()` deletes only what was replayed. Files adopted
 * from a process that is gone (`SpillDirectory`) join the replay files. Every file is this
 * process's alone while it lives; nothing here ever touches another live process's files.
 */
export class SpillFile<T> {
  readonly kind: SpillKind;
  readonly #home: SpillFileHome;
  readonly #appendPath: string;
  /** Items in the appended file since the last claim. */
  #appendedCount = 0;
  /** Files waiting to be replayed, oldest first; the first is the one `claim` hands out. */
  readonly #replays: { path: string; count: number }[] = [];
  readonly #adoptedListeners: (() => void)[] = [];

  constructor(kind: SpillKind, home: SpillFileHome) {
    this.kind = kind;
    this.#home = home;
    this.#appendPath = home.appendPathOf(kind);
  }

  /** Items waiting in this process's files (adopted ones included). */
  get count(): number {
    return this.#replays.reduce((sum, replay) => sum + replay.count, this.#appendedCount);
  }

  /** Synchronous on purpose: it runs only when the store has failed, and must not be lost to a crash. */
  append(items: readonly T[]): void {
    if (items.length === 0) return;
    this.#home.holdLock();
    appendFileSync(this.#appendPath, items.map((item) => `${JSON.stringify(item)}\n`).join(''));
    this.#appendedCount += items.length;
  }

  /**
   * The items to replay next, oldest first: the first replay file (one an earlier replay did not
   * finish, or one adopted), else everything appended so far (renamed away, so later appends
   * start afresh). Files of gone processes are adopted first. Empty when nothing waits.
   */
  claim(): T[] {
    if (this.count === 0) return [];
    this.#home.adoptOrphansBeforeReplay();
    for (;;) {
      if (this.#replays.length === 0) {
        if (this.#appendedCount === 0) return [];
        const path = this.#home.nextReplayPathOf(this.kind);
        renameSync(this.#appendPath, path);
        this.#replays.push({ path, count: this.#appendedCount });
        this.#appendedCount = 0;
      }
      const items = readItems<T>(this.#replays[0]!.path);
      if (items.length > 0) return items;
      // Nothing whole in it (a crash tore its only line): nothing to replay.
      this.release();
    }
  }

  /** Forgets the claimed items once every one of them is stored; what was appended since stays. */
  release(): void {
    const replayed = this.#replays.shift();
    if (replayed) rmSync(replayed.path, { force: true });
  }

  /** Takes a file already renamed to one of this process's replay names; returns how many items it holds. */
  adopt(path: string): number {
    const count = readItems(path).length;
    if (count === 0) rmSync(path);
    else this.#replays.push({ path, count });
    return count;
  }

  /** `listener` runs after files of a gone process joined this one (so a writer replays them soon). */
  onAdopted(listener: () => void): void {
    this.#adoptedListeners.push(listener);
  }

  /** Tells the listeners that adopted items wait here. */
  adopted(): void {
    for (const listener of this.#adoptedListeners) listener();
  }
}

/** Whole items in a file, in order; a line a crash tore mid-append is skipped (its item was never acknowledged). */
export function readItems<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const items: T[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line === '') continue;
    try {
      items.push(JSON.parse(line) as T);
    } catch {
      // Only a line cut short by a crash can be unparseable.
    }
  }
  return items;
}
