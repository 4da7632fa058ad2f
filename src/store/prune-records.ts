import type { Database } from 'better-sqlite3';

/**
 * Deletes up to `limit` of the oldest request records created before `olderThanMs`, with their
 * attempts, in one short transaction; returns how many went. Spend rows are money and stay.
 * Small batches keep each transaction brief, so writers waiting for the lock wait little.
 */
export function pruneRecords(database: Database, options: { olderThanMs: number; limit: number }): number {
  const prune = database.transaction((olderThanMs: number, limit: number) => {
    const ids = database
      .prepare('SELECT id FROM requests WHERE created_ms < ? ORDER BY created_ms LIMIT ?')
      .pluck()
      .all(olderThanMs, limit) as string[];
    if (ids.length === 0) return 0;
    const placeholders = ids.map(() => '?').join(', ');
    database.prepare(`DELETE FROM attempts WHERE request_id IN (${placeholders})`).run(...ids);
    return database.prepare(`DELETE FROM requests WHERE id IN (${placeholders})`).run(...ids).changes;
  });
  return prune(options.olderThanMs, options.limit);
}
