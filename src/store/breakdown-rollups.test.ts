import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FailureKind } from '../core/failure-kind.js';
import type { RequestOrigin } from '../core/request-origin.js';
import type { RequestRecord } from '../core/request-record.js';
import {
  BREAKDOWN_TABLES,
  breakdownRollups,
  firstTokenBin,
  type BreakdownRollups,
  type BreakdownTable,
  type FirstTokenMinuteRow,
  type OutcomeMinuteRow,
} from './breakdown-rollups.js';
import { recordFacts } from './record-facts.js';

describe('firstTokenBin', () => {
  it('is exact below 20 ms and at most 10 % below the value above, never above it', () => {
    expect([0, 7, 19, 20, 21, 22, 100, 1_000].map(firstTokenBin)).toEqual([0, 7, 19, 20, 20, 22, 91, 995]);
    for (let ms = 20; ms < 200_000; ms = Math.ceil(ms * 1.013)) {
      const bin = firstTokenBin(ms);
      expect(bin, String(ms)).toBeLessThanOrEqual(ms);
      expect(bin, String(ms)).toBeGreaterThan(ms / 1.1 - 1);
    }
  });

  it('keeps a decade in about 24 bins', () => {
    const bins = new Set(Array.from({ length: 900 }, (_, index) => firstTokenBin(100 + index)));
    expect(bins.size).toBeGreaterThanOrEqual(23);
    expect(bins.size).toBeLessThanOrEqual(26);
  });
});

/** Each table's rows summed by key, as a store's upserts would leave them. */
function summedByKey(batches: readonly BreakdownRollups[]): Record<string, Record<string, number | string>[]> {
  const tables: Record<string, Record<string, number | string>[]> = {};
  for (const table of Object.keys(BREAKDOWN_TABLES) as BreakdownTable[]) {
    const { keys, sums } = BREAKDOWN_TABLES[table];
    const rows = new Map<string, Record<string, number | string>>();
    for (const batch of batches) {
      for (const row of batch[table] as Record<string, number | string>[]) {
        const key = JSON.stringify(keys.map((name) => row[name]));
        const found = rows.get(key);
        if (!found) rows.set(key, { ...row });
        else for (const sum of sums) (found[sum] as number) += row[sum] as number;
      }
    }
    tables[table] = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, row]) => row);
  }
  return tables;
}

const attemptArbitrary = fc.record({
  connection: fc.constantFrom('a', 'b'),
  provider: fc.constant('openai'),
  model: fc.constantFrom('m1', 'm2'),
  kind: fc.constantFrom<FailureKind>('ok', 'timeout', 'rate_limit'),
  first_token_ms: fc.constantFrom(null, 150, 2_000),
  usage: fc.option(fc.record({ input_tokens: fc.nat(100), output_tokens: fc.nat(100), cache_read_tokens: fc.nat(50) })),
});

const recordArbitrary = fc
  .record({
    // Few minutes and first-token values, so that records often share a group.
    second: fc.integer({ min: 0, max: 150 }),
    origin: fc.constantFrom<RequestOrigin>('caller', 'drill'),
    status: fc.constantFrom<RequestRecord['status']>('ok', 'failed', 'rejected', 'cancelled'),
    route: fc.option(fc.constantFrom('chat', 'code')),
    key_name: fc.option(fc.constantFrom('k1', 'k2')),
    team: fc.option(fc.constantFrom('team_a', 'team_b')),
    served: fc.option(fc.constantFrom('a', 'b')),
    fallback: fc.option(fc.boolean(), { nil: undefined }),
    first_token_ms: fc.constantFrom(null, 150, 2_000),
    cost_usd: fc.option(fc.integer({ min: 0, max: 1_000 }).map((micros) => micros / 1_000_000)),
    attempts: fc.array(attemptArbitrary, { maxLength: 3 }),
  })
  .map(
    ({ second, served, ...fields }) =>
      ({
        ...fields,
        created_at: new Date(Date.UTC(2026, 0, 1) + second * 1_000).toISOString(),
        http_status: fields.status === 'rejected' ? 429 : 200,
        error_code: fields.status === 'rejected' ? 'rate_limit_exceeded' : null,
        served: served === null ? null : { connection: served, provider: 'openai', model: 'm1' },
      }) as unknown as RequestRecord,
  );

describe('breakdownRollups', () => {
  it('counts a batch exactly as its records counted one at a time', () => {
    fc.assert(
      fc.property(fc.array(recordArbitrary, { minLength: 10, maxLength: 60 }), (records) => {
        const alone = records.map((record) => breakdownRollups([recordFacts(record)], []));
        expect(summedByKey([breakdownRollups(records.map(recordFacts), [])])).toEqual(summedByKey(alone));
      }),
      { numRuns: 200 },
    );
  });

  it("spreads one request over the tables' facets", () => {
    const [record] = fc.sample(recordArbitrary, { seed: 7, numRuns: 1 });
    const request = {
      ...record!,
      origin: 'caller',
      route: 'chat',
      key_name: 'k1',
      team: 'team_a',
      served: { connection: 'a', provider: 'openai', model: 'm1' },
      first_token_ms: 150,
      attempts: [{ connection: 'a', provider: 'openai', model: 'm1', kind: 'ok', first_token_ms: 150, usage: { input_tokens: 7, output_tokens: 3 } }],
    } as RequestRecord;
    const rollups = breakdownRollups([recordFacts(request)], []);
    const outcomeRows = rollups.outcome_minutes as OutcomeMinuteRow[];
    expect(outcomeRows.map((row) => [row.facet, row.name, row.detail, row.input_tokens])).toEqual([
      ['all', '', '', 7],
      ['connection', 'a', 'openai', 7],
      ['key', 'k1', 'team_a', 7],
      ['route', 'chat', 'team_a', 7],
      ['team', 'team_a', '', 7],
    ]);
    expect(rollups.outcome_hours.map((row) => (row as OutcomeMinuteRow).facet)).toEqual(['connection', 'key', 'route', 'team']);
    expect(rollups.outcome_five_minutes.map((row) => (row as OutcomeMinuteRow).facet)).toEqual(['all', 'key', 'team']);
    expect(rollups.first_token_minutes.map((row) => [(row as FirstTokenMinuteRow).facet, (row as FirstTokenMinuteRow).bin])).toEqual([
      ['connection', firstTokenBin(150)],
      ['deployment', firstTokenBin(150)],
      ['route', firstTokenBin(150)],
    ]);
    expect(rollups.attempt_minutes).toEqual([{ origin: 'caller', minute: Math.floor(Date.parse(request.created_at) / 60_000), connection: 'a', model: 'm1', kind: 'ok', attempts: 1 }]);
  });

  it("counts a minute's requests once in each outcome row however their first tokens bin, and each bin in its own first-token row", () => {
    const [record] = fc.sample(recordArbitrary, { seed: 11, numRuns: 1 });
    const request = (firstTokenMs: number | null) =>
      recordFacts({ ...record!, origin: 'caller', status: 'ok', fallback: undefined, route: 'chat', key_name: null, team: null, served: null, first_token_ms: firstTokenMs, attempts: [] } as unknown as RequestRecord);
    const rollups = breakdownRollups([request(150), request(2_000), request(null), request(150)], []);
    expect((rollups.outcome_minutes as OutcomeMinuteRow[]).map((row) => [row.facet, row.requests])).toEqual([
      ['all', 4],
      ['route', 4],
    ]);
    expect((rollups.outcome_hours as OutcomeMinuteRow[]).map((row) => [row.facet, row.requests])).toEqual([['route', 4]]);
    expect((rollups.first_token_minutes as FirstTokenMinuteRow[]).map((row) => [row.facet, row.bin, row.count])).toEqual([
      ['route', firstTokenBin(150), 2],
      ['route', firstTokenBin(2_000), 1],
    ]);
  });
});
