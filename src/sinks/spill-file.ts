import { appendFileSync, existsSync, readFileSync, unlinkSync } from 'node:fs';

/**
 * A local append-only file of items the store could not take (one JSON document a line), so a
 * store outage — or a shutdown during one — loses nothing. Replaying it is safe to repeat: the
 * writers insert-or-ignore on primary keys, so an item already stored is stored once.
 */
export class SpillFile<T> {
  readonly path: string;
  #count: number;

  constructor(path: string) {
    this.path = path;
    this.#count = existsSync(path) ? this.read().length : 0;
    // An empty file (or one holding only a line torn by a crash) is nothing to replay: no litter.
    if (this.#count === 0) this.clear();
  }

  /** Items waiting in the file. */
  get count(): number {
    return this.#count;
  }

  /** Synchronous on purpose: it runs only when the store has failed, and must not be lost to a crash. */
  append(items: readonly T[]): void {
    if (items.length === 0) return;
    appendFileSync(this.path, items.map((item) => `${JSON.stringify(item)}\n`).join(''));
    this.#count += items.length;
  }

  /** Everything in the file, oldest first; a torn last line (a crash mid-append) is skipped. */
  read(): T[] {
    const items: T[] = [];
    for (const line of this.#readLines()) {
      try {
        items.push(JSON.parse(line) as T);
      } catch {
        // Only a line cut short by a crash can be unparseable; its item was never acknowledged.
      }
    }
    return items;
  }

  /** Forgets the file's content once every item in it is stored. */
  clear(): void {
    if (existsSync(this.path)) unlinkSync(this.path);
    this.#count = 0;
  }

  #readLines(): string[] {
    if (!existsSync(this.path)) return [];
    return readFileSync(this.path, 'utf8').split('\n').filter((line) => line !== '');
  }
}
