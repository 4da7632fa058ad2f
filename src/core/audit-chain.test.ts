import { describe, expect, it } from 'vitest';
import { chainBreak, chainHash, GENESIS_HASH } from './audit-chain.js';
import type { AuditRow } from './audit-entry.js';

/** Rows chained as the store chains them, from `firstSeq` after `prevHash`. */
function chain(length: number, firstSeq = 1, prevHash = GENESIS_HASH): AuditRow[] {
  const rows: AuditRow[] = [];
  for (let index = 0; index < length; index++) {
    const fields = {
      seq: firstSeq + index,
      at: new Date(Date.UTC(2030, 0, 1, 0, 0, index)).toISOString(),
      actor: { kind: 'token' as const, id: 'admin.token', name: 'admin.token', role: 'admin' as const },
      action: 'key.create' as const,
      target: { kind: 'key', id: `key_${index}` },
      before: null,
      after: { name: `key ${index}`, limits: { rpm: index } },
      request_id: `req_${index}`,
      source_ip: '127.0.0.1',
      prev_hash: rows.at(-1)?.hash ?? prevHash,
    };
    rows.push({ ...fields, hash: chainHash(fields) });
  }
  return rows;
}

function firstBreak(rows: readonly AuditRow[]): { seq: number; problem: string } | undefined {
  for (let index = 0; index < rows.length; index++) {
    const problem = chainBreak(rows[index - 1], rows[index]!);
    if (problem) return { seq: rows[index]!.seq, problem };
  }
  return undefined;
}

describe('chainBreak', () => {
  it('finds nothing wrong with a chain as the store wrote it, whatever order the keys of its JSON come back in', () => {
    const rows = chain(5).map((row) => ({ ...row, after: Object.fromEntries(Object.entries(row.after as object).reverse()) }));
    expect(firstBreak(rows)).toBeUndefined();
  });

  it('names a row whose contents were changed', () => {
    const rows = chain(5);
    rows[2] = { ...rows[2]!, after: { name: 'key 2', limits: { rpm: 1000 } } };
    expect(firstBreak(rows)).toEqual({ seq: 3, problem: expect.stringContaining('changed after it was written') });
  });

  it('names the row after one deleted, and a row whose prev_hash was rewritten with its hash', () => {
    const rows = chain(5);
    expect(firstBreak([...rows.slice(0, 2), ...rows.slice(3)])).toEqual({ seq: 4, problem: expect.stringContaining('seq 3 is missing') });
    const { hash: _hash, ...fields } = rows[3]!;
    const rewritten = { ...fields, prev_hash: 'f'.repeat(64) };
    rows[3] = { ...rewritten, hash: chainHash(rewritten) };
    expect(firstBreak(rows)).toEqual({ seq: 4, problem: expect.stringContaining('prev_hash is not the hash of the row before it (seq 3)') });
  });

  it('takes the prev_hash of a first row after pruned ones as given, but not that of seq 1', () => {
    expect(firstBreak(chain(3, 40, 'a'.repeat(64)))).toBeUndefined();
    expect(firstBreak(chain(3, 1, 'a'.repeat(64)))).toEqual({ seq: 1, problem: expect.stringContaining('genesis') });
  });
});
