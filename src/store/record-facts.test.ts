import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../core/request-record.js';
import { recordFacts } from './record-facts.js';
import { requestRow } from './table-rows.js';

const record = (fields: Partial<RequestRecord>) =>
  ({ id: 'req_a', created_at: '2026-01-01T00:02:30.500Z', status: 'ok', http_status: 200, route: 'chat', model_requested: 'chat', key_name: null, stream: false, latency_ms: 3, attempts: [], ...fields }) as RequestRecord;

describe('recordFacts', () => {
  it('works out the start, its minute, the origin and the outcome', () => {
    expect(recordFacts(record({ origin: 'drill', fallback: true }))).toMatchObject({
      createdMs: Date.parse('2026-01-01T00:02:30.500Z'),
      minute: Math.floor(Date.parse('2026-01-01T00:02:00.000Z') / 60_000),
      origin: 'drill',
      outcome: 'served_after_failover',
    });
  });

  it('files a malformed start under now, and a record from before origins under its mark', () => {
    const before = Date.now();
    const facts = recordFacts(record({ created_at: 'yesterday', probe: true } as Partial<RequestRecord>));
    expect(facts.createdMs).toBeGreaterThanOrEqual(before);
    expect(facts.minute).toBe(Math.floor(facts.createdMs / 60_000));
    expect(facts.origin).toBe('probe');
  });
});

describe('requestRow', () => {
  it("takes its start, origin and outcome from the facts it is given rather than working them out again", () => {
    const facts = { ...recordFacts(record({})), createdMs: 7, origin: 'canary', outcome: 'cancelled' } as const;
    expect(requestRow(facts.record, undefined, facts)).toMatchObject({ created_ms: 7, origin: 'canary', outcome: 'cancelled' });
    expect(requestRow(facts.record)).toMatchObject({ created_ms: Date.parse('2026-01-01T00:02:30.500Z'), origin: 'caller', outcome: 'served_first_try' });
  });
});
