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
