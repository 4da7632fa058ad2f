import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../core/attempt-record.js';
import { priceFor } from '../metering/price.js';
import { spendRowsOf, type SpendRowsInput } from './spend-rows-of.js';

function attempt(overrides: Partial<AttemptRecord> & Pick<AttemptRecord, 'n'>): AttemptRecord {
  return {
    connection: 'anthropic',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    kind: 'ok',
    startedMs: 0,
    latencyMs: 100,
    committed: true,
    malformedEvents: 0,
    ...overrides,
  };
}

function rowsOf(attempts: AttemptRecord[], overrides: Partial<SpendRowsInput> = {}) {
  return spendRowsOf({
    requestId: 'req_1',
    keyId: 'key_a',
    keyName: 'team-a',
    route: 'chat',
    origin: 'caller',
    createdMs: 1_750_000_000_000,
    attempts,
    priceOf: (entry) => priceFor({ model: entry.model }),
    ...overrides,
  });
}

describe('spendRowsOf', () => {
  it('writes one row for a served attempt, with its cost and the request context', () => {
    const rows = rowsOf([attempt({ n: 1, usage: { inputTokens: 10_000, outputTokens: 5_000 } })]);
    expect(rows).toEqual([
      {
        requestId: 'req_1',
        attemptN: 1,
        keyId: 'key_a',
        keyName: 'team-a',
        route: 'chat',
        connection: 'anthropic',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        inputTokens: 10_000,
        outputTokens: 5_000,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        costMicros: 105_000,
        estimated: false,
        priced: true,
        origin: 'caller',
        createdMs: 1_750_000_000_000,
      },
    ]);
  });

  it('bills both attempts of a request that recovered after a billed failure', () => {
    const rows = rowsOf([
      // A stream that died before its commit point: the gateway counted what it had.
      attempt({ n: 1, kind: 'stream_interrupted', committed: false, usage: { inputTokens: 2_000, outputTokens: 300, estimated: true } }),
      attempt({ n: 2, connection: 'openai', provider: 'openai', model: 'gpt-4.1', usage: { inputTokens: 2_000, outputTokens: 800 } }),
    ]);
    // 2,000 × 3 + 300 × 15 = 10,500; 2,000 × 2 + 800 × 8 = 10,400.
    expect(rows.map((row) => [row.attemptN, row.costMicros, row.estimated])).toEqual([
      [1, 10_500, true],
      [2, 10_400, false],
    ]);
    expect(rows.reduce((sum, row) => sum + row.costMicros, 0)).toBe(20_900);
  });

  it('writes no row for attempts that consumed nothing', () => {
    const rows = rowsOf([
      attempt({ n: 1, kind: 'rate_limit', httpStatus: 429, committed: false }),
      attempt({ n: 2, kind: 'server_error', httpStatus: 500, committed: false, usage: { inputTokens: 0, outputTokens: 0 } }),
      attempt({ n: 3, usage: { inputTokens: 12, outputTokens: 0 } }),
    ]);
    expect(rows.map((row) => row.attemptN)).toEqual([3]);
  });

  it('keeps the cache counts and prices them at their rates', () => {
    const [row] = rowsOf([attempt({ n: 1, usage: { inputTokens: 10_000, outputTokens: 1_000, cacheReadTokens: 6_000, cacheWriteTokens: 2_000 } })]);
    expect(row).toMatchObject({ cacheReadTokens: 6_000, cacheWriteTokens: 2_000, cacheWrite1hTokens: 0, costMicros: 30_300 });
    // The same writes to the 1-hour cache: 2,000 × 6 instead of 2,000 × 3.75.
    const [hour] = rowsOf([attempt({ n: 1, usage: { inputTokens: 10_000, outputTokens: 1_000, cacheReadTokens: 6_000, cacheWriteTokens: 2_000, cacheWrite1hTokens: 2_000 } })]);
    expect(hour).toMatchObject({ cacheWriteTokens: 2_000, cacheWrite1hTokens: 2_000, costMicros: 34_800 });
  });

  it('records an unknown model at zero cost, marked unpriced rather than passing as free', () => {
    const [row] = rowsOf([attempt({ n: 1, connection: 'mock', provider: 'mock', model: 'gpt-mock', usage: { inputTokens: 40, outputTokens: 9 } })]);
    expect(row).toMatchObject({ model: 'gpt-mock', inputTokens: 40, outputTokens: 9, costMicros: 0, priced: false });
  });

  it('uses the price the caller resolves for each attempt (a target override)', () => {
    const rows = rowsOf([attempt({ n: 1, usage: { inputTokens: 1_000_000, outputTokens: 0 } })], {
      priceOf: () => priceFor({ model: 'claude-sonnet-4-5', price: { input_per_mtok: 1, output_per_mtok: 1 } }),
    });
    expect(rows[0]?.costMicros).toBe(1_000_000);
  });

  it('marks probe rows and rows without a key', () => {
    const [row] = rowsOf([attempt({ n: 1, usage: { inputTokens: 5, outputTokens: 1 } })], { origin: 'probe', keyId: null, keyName: null, route: null });
    expect(row).toMatchObject({ origin: 'probe', keyId: null, keyName: null, route: null });
  });
});
