import { createHash } from 'node:crypto';
import type { AuditRow } from './audit-entry.js';

/** The `prev_hash` of the first row ever appended. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * JSON with every object's keys sorted, no spaces: one text per value whatever order its keys were
 * built in, read back from JSON columns, or listed by a database — what the chain's hash is taken of.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

/** `sha256(prev_hash + canonical JSON of the row)`, the row being every field but the two hashes. */
export function chainHash(row: Omit<AuditRow, 'hash'>): string {
  const { prev_hash: prevHash, ...fields } = row;
  return createHash('sha256').update(prevHash + canonicalJson(fields)).digest('hex');
}

/**
 * What breaks the chain at `row`, read right after `previous` (undefined: the first row there is);
 * undefined when the link holds. A first row after `seq` 1 follows rows the retention pruned: its
 * `prev_hash` is taken as given.
 */
export function chainBreak(previous: AuditRow | undefined, row: AuditRow): string | undefined {
  const { hash, ...hashed } = row;
  if (chainHash(hashed) !== hash) return 'its hash is not the hash of its contents: the row was changed after it was written';
  if (!previous) return row.seq === 1 && row.prev_hash !== GENESIS_HASH ? 'it is the first row, but its prev_hash is not the genesis hash' : undefined;
  if (row.seq <= previous.seq) return `its seq does not come after the row before it (seq ${previous.seq})`;
  if (row.seq > previous.seq + 1) {
    const missing = row.seq === previous.seq + 2 ? `seq ${previous.seq + 1} is` : `seq ${previous.seq + 1} to ${row.seq - 1} are`;
    return `${missing} missing between seq ${previous.seq} and it: deleted from the trail`;
  }
  if (row.prev_hash !== previous.hash) return `its prev_hash is not the hash of the row before it (seq ${previous.seq})`;
  return undefined;
}
