import type { RequestRecord } from '../core/request-record.js';

/** How many of the newest records stay readable before their write lands, unless told otherwise. */
export const DEFAULT_RECENT_LIMIT = 10_000;

/**
 * Records whose batched write has not landed (pending, or spilled while the store is out), newest
 * kept when bounded, so a record is readable the moment its response ends (docs/operations.md). A Map keeps insertion order, so the first key is
 * always the oldest and eviction is O(1).
 */
export class RecentRecords {
  private readonly records = new Map<string, RequestRecord>();

  constructor(private readonly maxEntries = DEFAULT_RECENT_LIMIT) {
    if (!Number.isInteger(maxEntries) || maxEntries <= 0) throw new RangeError(`RecentRecords: maxEntries must be a positive integer (got ${maxEntries})`);
  }

  get size(): number {
    return this.records.size;
  }

  set(record: RequestRecord): void {
    // Re-inserting moves the id to the newest end.
    this.records.delete(record.id);
    this.records.set(record.id, record);
    if (this.records.size > this.maxEntries) {
      const oldest = this.records.keys().next();
      if (!oldest.done) this.records.delete(oldest.value);
    }
  }

  delete(id: string): void {
    this.records.delete(id);
  }

  get(id: string): RequestRecord | undefined {
    return this.records.get(id);
  }
}
