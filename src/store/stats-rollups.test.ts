import { describe, expect, it } from 'vitest';
import { cacheRollups, latencyBin, requestRollups, spendRollups } from './stats-rollups.js';
import type { RequestRecord } from '../core/request-record.js';
import { recordFacts } from './record-facts.js';
import type { SpendRow } from '../core/spend-row.js';

describe('latencyBin', () => {
  it('is exact below 100 ms and keeps two significant digits above, rounding down', () => {
    expect([0, 7, 99, 100, 109, 999, 1_000, 1_099, 12_345, 987_654, 1_234_567].map(latencyBin)).toEqual([0, 7, 99, 100, 100, 990, 1_000, 1_000, 12_000, 980_000, 1_200_000]);
    expect(latencyBin(3.7)).toBe(3);
    expect(latencyBin(-1)).toBe(0);
  });
});

const record = (createdAt: string, fields: Partial<RequestRecord>) =>
  recordFacts({ created_at: createdAt, status: 'ok', attempts: [{}], added_latency_ms: 2, first_token_ms: null, ...fields } as RequestRecord);

describe('requestRollups', () => {
  it("adds up each minute of callers' requests, counting fallback only over routed requests and latencies only where they apply", () => {
    const { minutes, latencies } = requestRollups([
      record('2026-01-01T00:01:30.000Z', { fallback: true, attempts: [{}, {}] as RequestRecord['attempts'], first_token_ms: 140 }),
      record('2026-01-01T00:00:10.000Z', { fallback: false }),
      record('2026-01-01T00:00:50.000Z', { status: 'rejected', attempts: [], added_latency_ms: 1 }),
      record('2026-01-01T00:00:20.000Z', { origin: 'drill', fallback: true }),
      record('2026-01-01T00:00:30.000Z', { origin: 'probe' }),
    ]);
    const minute = Date.parse('2026-01-01T00:00:00.000Z') / 60_000;
    expect(minutes).toEqual([
      { minute, requests: 2, ok: 1, fallback: 0, routed: 1, attempts: 1 },
      { minute: minute + 1, requests: 1, ok: 1, fallback: 1, routed: 1, attempts: 2 },
    ]);
    expect(latencies).toEqual([
      { minute, metric: 'added', bin: 2, count: 1 },
      { minute: minute + 1, metric: 'added', bin: 2, count: 1 },
      { minute: minute + 1, metric: 'first_token', bin: 140, count: 1 },
    ]);
  });
});

describe('spendRollups', () => {
  it('sums the cost of each minute the requests started in', () => {
    const row = (createdMs: number, costMicros: number) => ({ createdMs, costMicros }) as SpendRow;
    expect(spendRollups([row(61_000, 5), row(60_000, 7), row(1_000, 1)])).toEqual([
      { minute: 0, cost_micros: 1 },
      { minute: 1, cost_micros: 12 },
    ]);
  });
});

describe('cacheRollups', () => {
  it("sums callers' prompt and cache tokens per minute and deployment, leaving the gateway's own traffic out", () => {
    const row = (createdMs: number, model: string, tokens: [number, number, number], origin: SpendRow['origin'] = 'caller') =>
      ({ createdMs, connection: 'c', model, inputTokens: tokens[0], cacheReadTokens: tokens[1], cacheWriteTokens: tokens[2], origin }) as SpendRow;
    expect(
      cacheRollups([row(61_000, 'b', [10, 8, 0]), row(1_000, 'a', [100, 60, 20]), row(2_000, 'a', [50, 40, 0]), row(3_000, 'a', [9, 0, 0], 'probe')]),
    ).toEqual([
      { minute: 0, connection: 'c', model: 'a', input_tokens: 150, cache_read_tokens: 100, cache_write_tokens: 20 },
      { minute: 1, connection: 'c', model: 'b', input_tokens: 10, cache_read_tokens: 8, cache_write_tokens: 0 },
    ]);
  });
});
