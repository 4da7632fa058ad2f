import type { SpendRow } from '../core/spend-row.js';
import { MINUTE_MS, storedOrigin, type RecordFacts } from './record-facts.js';
import type { CacheMinutesTable, RequestMinutesTable, SpendMinutesTable } from './schema.js';

/** One minute's counts (the `request_minutes` table), by the minute the requests started in. */
export type RequestMinuteRow = RequestMinutesTable;

/** How many requests of a minute had a figure in one histogram bin (the `latency_minutes` table). */
export interface LatencyMinuteRow {
  minute: number;
  /** `added`: added latency of answered requests; `first_token`: first token of any that had one. */
  metric: 'added' | 'first_token';
  /** The bin's start, milliseconds (see `latencyBin`). */
  bin: number;
  count: number;
}

/** One minute's prompt tokens on one deployment, and the cache's share of them: a `cache_minutes` row. */
export type CacheMinuteRow = CacheMinutesTable;

/** One minute's ledger total (the `spend_minutes` table), by the minute the requests started in. */
export type SpendMinuteRow = SpendMinutesTable;

/**
 * Milliseconds rounded down to two significant digits (exact below 100 ms): at most 90 bins a
 * decade, so a minute's histogram stays a few hundred rows however many requests it holds, and a
 * percentile read from it is within 10 % (below the true value, never above).
 */
export function latencyBin(ms: number): number {
  const whole = Math.max(0, Math.floor(ms));
  if (whole < 100) return whole;
  const step = 10 ** (String(whole).length - 2);
  return Math.floor(whole / step) * step;
}

/**
 * The per-minute figures of newly stored callers' records, to add to the rollup tables in the same
 * transaction: the dashboard's figures then cost a read of the minutes in a range, not of the
 * requests. Rows come sorted by key, so concurrent writers lock them in one order.
 */
export function requestRollups(records: readonly RecordFacts[]): { minutes: RequestMinuteRow[]; latencies: LatencyMinuteRow[] } {
  const minutes = new Map<number, RequestMinuteRow>();
  const latencies = new Map<string, LatencyMinuteRow>();
  const countLatency = (minute: number, metric: LatencyMinuteRow['metric'], ms: number) => {
    const bin = latencyBin(ms);
    const key = `${minute}/${metric}/${bin}`;
    const row = latencies.get(key) ?? { minute, metric, bin, count: 0 };
    row.count += 1;
    latencies.set(key, row);
  };
  for (const { record, origin, minute } of records) {
    // Callers' figures: the gateway's own traffic (drills, canaries, probes) is kept out, as from the fallback share.
    if (origin !== 'caller') continue;
    const row = minutes.get(minute) ?? { minute, requests: 0, ok: 0, fallback: 0, routed: 0, attempts: 0 };
    row.requests += 1;
    row.attempts += record.attempts.length;
    if (record.fallback !== undefined) {
      row.routed += 1;
      if (record.fallback) row.fallback += 1;
    }
    if (record.status === 'ok') {
      row.ok += 1;
      countLatency(minute, 'added', record.added_latency_ms);
    }
    if (record.first_token_ms !== null) countLatency(minute, 'first_token', record.first_token_ms);
    minutes.set(minute, row);
  }
  return {
    minutes: [...minutes.values()].sort((a, b) => a.minute - b.minute),
    latencies: [...latencies.values()].sort((a, b) => a.minute - b.minute || compareText(a.metric, b.metric) || a.bin - b.bin),
  };
}

/** The per-minute totals of newly stored spend rows, the gateway's own included (it is billed too), sorted by minute. */
export function spendRollups(rows: readonly SpendRow[]): SpendMinuteRow[] {
  const minutes = new Map<number, SpendMinuteRow>();
  for (const spend of rows) {
    const minute = Math.floor(spend.createdMs / MINUTE_MS);
    const row = minutes.get(minute) ?? { minute, cost_micros: 0 };
    row.cost_micros += spend.costMicros;
    minutes.set(minute, row);
  }
  return [...minutes.values()].sort((a, b) => a.minute - b.minute);
}

/**
 * The per-minute, per-deployment prompt tokens of newly stored callers' spend rows, for each
 * deployment's cache hit ratio: the gateway's own traffic (short, never cached) is kept out, as
 * from the other dashboard figures. Sorted by key, so concurrent writers lock rows in one order.
 */
export function cacheRollups(rows: readonly SpendRow[]): CacheMinuteRow[] {
  const minutes = new Map<string, CacheMinuteRow>();
  for (const spend of rows) {
    if (storedOrigin(spend) !== 'caller') continue;
    const minute = Math.floor(spend.createdMs / MINUTE_MS);
    const key = JSON.stringify([minute, spend.connection, spend.model]);
    const row = minutes.get(key) ?? { minute, connection: spend.connection, model: spend.model, input_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
    row.input_tokens += spend.inputTokens;
    row.cache_read_tokens += spend.cacheReadTokens;
    row.cache_write_tokens += spend.cacheWriteTokens;
    minutes.set(key, row);
  }
  return [...minutes.values()].sort((a, b) => a.minute - b.minute || a.connection.localeCompare(b.connection) || a.model.localeCompare(b.model));
}

/** By UTF-16 code units: a rollup's rows need one order for every writer, not a language's, and `localeCompare` asks ICU for each pair. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
