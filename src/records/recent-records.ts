import type { RequestRecord } from './request-record.js';

/**
 * The newest records by id, bounded, so a record is readable the moment its response ends even
 * while its batched write is pending (docs/operations.md). A Map keeps insertion order, so the first key is
 * always the oldest and eviction is O(1).
 */
export class RecentRecords {
  private readonly records = new Map<string, RequestRecord>();

  constructor(private readonly maxEntries = 10_000) {
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

  get(id: string): RequestRecord | undefined {
    return this.records.get(id);
  }
}
