import { describe, expect, it } from 'vitest';
import type { SpendRow } from '../core/spend-row.js';
import type { RequestRecord } from '../core/request-record.js';
import { storedOrigin } from './record-facts.js';
import { requestRow, spendTableRow } from './table-rows.js';

describe('storedOrigin', () => {
  it('keeps the origin an item has', () => {
    expect(storedOrigin({ origin: 'drill' })).toBe('drill');
    expect(storedOrigin({ origin: 'caller', probe: true })).toBe('caller');
  });

  it("gives an item from a build before origins its build's mark: a probe, else a caller", () => {
    expect(storedOrigin({ probe: true })).toBe('probe');
    expect(storedOrigin({ probe: false })).toBe('caller');
    expect(storedOrigin({})).toBe('caller');
  });
});

describe('the rows of an item replayed from an older spill file', () => {
  it('carry the origin its build marked', () => {
    const oldRecord = { id: 'req_old', created_at: '2025-01-01T00:00:00.000Z', status: 'ok', http_status: 200, route: null, model_requested: 'c/m', key_name: null, stream: false, latency_ms: 3, attempts: [], probe: true };
    expect(requestRow(oldRecord as unknown as RequestRecord)).toMatchObject({ id: 'req_old', origin: 'probe' });
    const oldSpend = { requestId: 'req_old', attemptN: 1, keyId: 'key_a', keyName: 'a', route: 'r', connection: 'c', provider: 'mock', model: 'm', inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costMicros: 1, estimated: false, priced: true, probe: false, createdMs: 0 };
    expect(spendTableRow(oldSpend as unknown as SpendRow)).toMatchObject({ origin: 'caller', probe: 0 });
  });
});
