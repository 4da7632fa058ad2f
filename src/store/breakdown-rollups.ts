import type { RequestRecord } from '../core/request-record.js';
import type { FailureKind } from '../core/failure-kind.js';
import type { RequestOrigin } from '../core/request-origin.js';
import { usdToMicros } from '../metering/money.js';
import type { AttemptMinutesTable, FirstTokenMinutesTable, LatencyFiveMinutesTable, OutcomeMinutesTable } from './schema.js';
import type { RecordFacts } from './record-facts.js';
import { compareText, type LatencyMinuteRow } from './stats-rollups.js';

/**
 * What a request is counted under in `outcome_minutes`: `all` (the bucket's own figures), its
 * `route` (named or '' for a direct `connection/model`), the `connection` that served it (with
 * its provider kind as `detail`), its `key`, its key's `team` (the team's id). Requests nothing
 * served, no key made or of no team are left out of those facets. A route's and a key's rows
 * hold the key's team id as `detail` ('' for none), so a team's view reads its own rows of both.
 */
export type OutcomeFacet = 'all' | 'route' | 'connection' | 'key' | 'team';

/** Whose first tokens a `first_token_minutes` row counts: requests by route (`detail`: the key's team id, or '') or serving connection, or attempts by deployment. */
export type FirstTokenFacet = 'route' | 'connection' | 'deployment';

export type OutcomeMinuteRow = OutcomeMinutesTable;
export type AttemptMinuteRow = AttemptMinutesTable;
export type FirstTokenMinuteRow = FirstTokenMinutesTable;
export type LatencyFiveMinuteRow = LatencyFiveMinutesTable;

/** The columns of `outcome_minutes` and its twins by the hour and by 5 minutes. */
const OUTCOME_COLUMNS = {
  keys: ['facet', 'origin', 'minute', 'name', 'detail', 'outcome'],
  sums: ['requests', 'attempts', 'reached', 'fallback', 'routed', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'cost_micros'],
} as const;

/** The columns of `first_token_minutes` and its twins by the hour and by 5 minutes. */
const FIRST_TOKEN_COLUMNS = { keys: ['facet', 'origin', 'minute', 'name', 'detail', 'bin'], sums: ['count'] } as const;

/** Each rollup table: the columns a row is keyed on and the ones an upsert adds up. */
export const BREAKDOWN_TABLES = {
  outcome_minutes: OUTCOME_COLUMNS,
  attempt_minutes: { keys: ['origin', 'minute', 'connection', 'model', 'kind'], sums: ['attempts'] },
  first_token_minutes: FIRST_TOKEN_COLUMNS,
  // The same figures by the hour (`minute`: the hour's first), for the range-wide breakdowns: a
  // day's read is then 24 hours of rows and the minutes of the partial hours at its ends.
  outcome_hours: OUTCOME_COLUMNS,
  first_token_hours: FIRST_TOKEN_COLUMNS,
  // The buckets' own figures (facet `all`) and keys' and teams' series by 5 minutes, for buckets of
  // 5 minutes or more: a day's keys by the minute were the largest scan of the breakdowns.
  outcome_five_minutes: OUTCOME_COLUMNS,
  // Deployments' first tokens by 5 minutes (`minute`: the first of the five), for their series: a
  // day by 5 minutes or more reads a fifth of the per-minute rows.
  first_token_five_minutes: FIRST_TOKEN_COLUMNS,
  // `latency_minutes`' histograms (callers' figures, origin `caller`) by 5 minutes, for the buckets
  // of 5 minutes or more: a day's read is then a fifth of the per-minute rows, the largest read of the day.
  latency_five_minutes: { keys: ['origin', 'minute', 'metric', 'bin'], sums: ['count'] },
} as const;

export const HOUR_MINUTES = 60;
export const FIVE_MINUTES = 5;

export type BreakdownTable = keyof typeof BREAKDOWN_TABLES;

export type BreakdownRollups = Record<BreakdownTable, object[]>;

/**
 * The incident view's per-minute figures of newly stored records, every origin's (the view picks
 * one), to add to the rollup tables in the transaction that stores the records: a replayed
 * record, skipped as stored already, is not counted again. `callerLatencies`: the same records'
 * `latency_minutes` rows (`requestRollups`), summed into their 5-minute twin. Rows come sorted by
 * key, so concurrent writers lock them in one order.
 *
 * Records are first summed into groups that count alike everywhere (a batch under steady traffic
 * is a handful of them), and each group is then spread over the tables' facets: the per-record
 * work is one key and one sum, not a row per table. The first-token histograms group apart, by
 * bin: in the outcome groups the bin split a minute's requests into as many groups as bins, and
 * each group cost a row per facet of every outcome table.
 */
export function breakdownRollups(records: readonly RecordFacts[], callerLatencies: readonly LatencyMinuteRow[]): BreakdownRollups {
  const requests = new Map<string, RequestGroup>();
  const firstTokenGroups = new Map<string, FirstTokenGroup>();
  const attemptGroups = new Map<string, AttemptGroup>();
  for (const facts of records) {
    const { record, origin, minute, outcome } = facts;
    const served = record.served;
    const key = JSON.stringify([origin, minute, record.route, served?.connection, served?.provider, record.key_name, record.team, outcome]);
    const group = requests.get(key);
    if (group) addFigures(group.figures, record);
    else requests.set(key, { facts, figures: addFigures(noFigures(), record) });
    if (record.first_token_ms !== null) {
      const bin = firstTokenBin(record.first_token_ms);
      const binKey = JSON.stringify([origin, minute, record.route, served?.connection, served?.provider, record.team, bin]);
      const found = firstTokenGroups.get(binKey);
      if (found) found.count += 1;
      else firstTokenGroups.set(binKey, { facts, bin, count: 1 });
    }
    for (const attempt of record.attempts) {
      const attemptBin = attempt.first_token_ms === null ? null : firstTokenBin(attempt.first_token_ms);
      const attemptKey = JSON.stringify([origin, minute, attempt.connection, attempt.model, attempt.kind, attemptBin]);
      const found = attemptGroups.get(attemptKey);
      if (found) found.count += 1;
      else attemptGroups.set(attemptKey, { origin, minute, connection: attempt.connection, model: attempt.model, kind: attempt.kind, bin: attemptBin, count: 1 });
    }
  }
  return spreadOverFacets([...requests.values()], [...firstTokenGroups.values()], [...attemptGroups.values()], callerLatencies);
}

/** Requests of one origin and minute that share their route, serving target, key, team and outcome; `facts`: the first one's. */
interface RequestGroup {
  facts: RecordFacts;
  figures: Figures;
}

/** Requests of one origin and minute that share their route, serving target and team, with a first token in one bin; `facts`: the first one's. */
interface FirstTokenGroup {
  facts: RecordFacts;
  bin: number;
  count: number;
}

/** Attempts of one origin and minute on one deployment that ended alike, with their first-token bin. */
interface AttemptGroup {
  origin: RequestOrigin;
  minute: number;
  connection: string;
  model: string;
  kind: FailureKind;
  bin: number | null;
  count: number;
}

function spreadOverFacets(
  requests: readonly RequestGroup[],
  firstTokenGroups: readonly FirstTokenGroup[],
  attemptGroups: readonly AttemptGroup[],
  callerLatencies: readonly LatencyMinuteRow[],
): BreakdownRollups {
  const outcomes = new Rollup<OutcomeMinuteRow>('outcome_minutes');
  const attempts = new Rollup<AttemptMinuteRow>('attempt_minutes');
  const firstTokens = new Rollup<FirstTokenMinuteRow>('first_token_minutes');
  const outcomeHours = new Rollup<OutcomeMinuteRow>('outcome_hours');
  const outcomeFives = new Rollup<OutcomeMinuteRow>('outcome_five_minutes');
  const firstTokenHours = new Rollup<FirstTokenMinuteRow>('first_token_hours');
  const firstTokenFives = new Rollup<FirstTokenMinuteRow>('first_token_five_minutes');
  const latencyFives = new Rollup<LatencyFiveMinuteRow>('latency_five_minutes');
  for (const { facts, figures } of requests) {
    const { record, origin, minute, outcome } = facts;
    const hour = hourOf(minute);
    // A record replayed from a spill file written before teams has none.
    const team = record.team ?? null;
    const facets: [OutcomeFacet, string, string][] = [['all', '', ''], ['route', record.route ?? '', team ?? '']];
    if (record.served) facets.push(['connection', record.served.connection, record.served.provider]);
    if (record.key_name !== null) facets.push(['key', record.key_name, team ?? '']);
    if (team !== null) facets.push(['team', team, '']);
    for (const [facet, name, detail] of facets) {
      outcomes.add({ facet, origin, minute, name, detail, outcome }, figures);
      if (facet !== 'all') outcomeHours.add({ facet, origin, minute: hour, name, detail, outcome }, figures);
    }
  }
  for (const { facts, bin, count } of firstTokenGroups) {
    const { record, origin, minute } = facts;
    const hour = hourOf(minute);
    const route: [FirstTokenFacet, string, string] = ['route', record.route ?? '', record.team ?? ''];
    const served: [FirstTokenFacet, string, string][] = record.served ? [['connection', record.served.connection, record.served.provider], route] : [route];
    for (const [facet, name, detail] of served) {
      firstTokens.add({ facet, origin, minute, name, detail, bin }, { count });
      firstTokenHours.add({ facet, origin, minute: hour, name, detail, bin }, { count });
    }
  }
  for (const { origin, minute, connection, model, kind, bin, count } of attemptGroups) {
    attempts.add({ origin, minute, connection, model, kind }, { attempts: count });
    if (bin === null) continue;
    firstTokens.add({ facet: 'deployment', origin, minute, name: connection, detail: model, bin }, { count });
    firstTokenFives.add({ facet: 'deployment', origin, minute: fiveMinutesOf(minute), name: connection, detail: model, bin }, { count });
  }
  // The 5-minute twins are sums of the batch's minute rows: work per row, not per record.
  for (const row of outcomes.values()) {
    if (row.facet !== 'all' && row.facet !== 'key' && row.facet !== 'team') continue;
    outcomeFives.add({ facet: row.facet, origin: row.origin, minute: fiveMinutesOf(row.minute), name: row.name, detail: row.detail, outcome: row.outcome }, row);
  }
  for (const row of callerLatencies) latencyFives.add({ origin: 'caller', minute: fiveMinutesOf(row.minute), metric: row.metric, bin: row.bin }, row);
  return {
    outcome_minutes: outcomes.rows(),
    attempt_minutes: attempts.rows(),
    first_token_minutes: firstTokens.rows(),
    outcome_hours: outcomeHours.rows(),
    outcome_five_minutes: outcomeFives.rows(),
    first_token_hours: firstTokenHours.rows(),
    first_token_five_minutes: firstTokenFives.rows(),
    latency_five_minutes: latencyFives.rows(),
  };
}

function hourOf(minute: number): number {
  return Math.floor(minute / HOUR_MINUTES) * HOUR_MINUTES;
}

function fiveMinutesOf(minute: number): number {
  return Math.floor(minute / FIVE_MINUTES) * FIVE_MINUTES;
}

const EXACT_BELOW_MS = 20;
const BIN_RATIO = 1.1;

/**
 * Milliseconds rounded down onto a grid 10 % apart (exact below 20 ms): about 24 bins a decade,
 * a quarter of `latencyBin`'s, because these histograms are kept per route, connection and
 * deployment and a day's read is their minutes times their bins. A percentile read from them is
 * within 10 % (below the true value, never above), as from `latencyBin`'s.
 */
export function firstTokenBin(ms: number): number {
  const whole = Math.max(0, Math.floor(ms));
  if (whole < EXACT_BELOW_MS) return whole;
  const step = Math.floor(Math.log(whole / EXACT_BELOW_MS) / Math.log(BIN_RATIO));
  // Floating point may land a whole value just under its own grid line: take the step below then.
  const bin = Math.floor(EXACT_BELOW_MS * BIN_RATIO ** step);
  return bin <= whole ? bin : Math.floor(EXACT_BELOW_MS * BIN_RATIO ** (step - 1));
}

type Figures = Omit<OutcomeMinuteRow, (typeof BREAKDOWN_TABLES)['outcome_minutes']['keys'][number]>;

function noFigures(): Figures {
  return { requests: 0, attempts: 0, reached: 0, fallback: 0, routed: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_micros: 0 };
}

/** Adds one request's additive figures; tokens are every attempt's, as the ledger has them. */
function addFigures(figures: Figures, record: RequestRecord): Figures {
  figures.requests += 1;
  figures.attempts += record.attempts.length;
  if (record.attempts.length > 0) figures.reached += 1;
  if (record.fallback === true) figures.fallback += 1;
  if (record.fallback !== undefined) figures.routed += 1;
  if (record.cost_usd !== null) figures.cost_micros += usdToMicros(record.cost_usd);
  for (const { usage } of record.attempts) {
    if (!usage) continue;
    figures.input_tokens += usage.input_tokens;
    figures.output_tokens += usage.output_tokens;
    figures.cache_read_tokens += usage.cache_read_tokens ?? 0;
    figures.cache_write_tokens += usage.cache_write_tokens ?? 0;
  }
  return figures;
}

/** Rows of one table summed by key. */
class Rollup<Row extends object> {
  readonly #keys: readonly string[];
  readonly #sums: readonly string[];
  readonly #rows = new Map<string, Row>();

  constructor(table: BreakdownTable) {
    this.#keys = BREAKDOWN_TABLES[table].keys;
    this.#sums = BREAKDOWN_TABLES[table].sums;
  }

  /**
   * Adds `sums`' sum columns to the row keyed as `keyed`. The first time, `keyed` (made for this
   * call) becomes that row: the figures are copied into it, not spread into a new object per facet.
   */
  add(keyed: Omit<Row, SumColumn>, sums: object): void {
    const fields = keyed as Record<string, string | number>;
    const figures = sums as Record<string, number>;
    const key = JSON.stringify(this.#keys.map((name) => fields[name]));
    const found = this.#rows.get(key) as Record<string, number> | undefined;
    if (found) {
      for (const name of this.#sums) found[name]! += figures[name]!;
      return;
    }
    for (const name of this.#sums) fields[name] = figures[name]!;
    this.#rows.set(key, keyed as Row);
  }

  /** The rows in no particular order. */
  values(): IterableIterator<Row> {
    return this.#rows.values();
  }

  rows(): Row[] {
    return [...this.#rows.entries()].sort(([a], [b]) => compareText(a, b)).map(([, row]) => row);
  }
}

/** Every table's sum columns: what `Rollup.add` takes apart from a row's key. */
type SumColumn = (typeof BREAKDOWN_TABLES)[BreakdownTable]['sums'][number];
