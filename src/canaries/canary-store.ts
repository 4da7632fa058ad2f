import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../store/schema.js';
import type { CanaryRun } from './canary-run.js';

/** How many runs an `auto` baseline is the mean of. */
export const BASELINE_RUNS = 3;
/** Runs kept per route: enough to see a trend, few enough that the table never grows. */
export const RUNS_KEPT_PER_ROUTE = 20;

/** What is learned of a route's `auto` baseline so far. */
export interface LearnedBaseline {
  /** The mean of the first `BASELINE_RUNS` scores; null until there are that many. */
  baseline: number | null;
  /** How many runs it has learned from (at most `BASELINE_RUNS`). */
  runs: number;
}

/**
 * Canary runs and learned baselines in the store (SQLite or PostgreSQL alike), so both survive a
 * restart and every replica sees the same. One statement per call: the store thread runs no
 * transactions, and none is needed — a baseline is the mean of the earliest rows, so two
 * replicas adding a score at once cannot corrupt it, only add a row that is never counted.
 */
export class CanaryStore {
  readonly #db: Kysely<DatabaseSchema>;

  constructor(db: Kysely<DatabaseSchema>) {
    this.#db = db;
  }

  /** Keeps a run, then drops the route's runs past the newest `RUNS_KEPT_PER_ROUTE`. */
  async addRun(run: CanaryRun): Promise<void> {
    const startedMs = Date.parse(run.started_at);
    await this.#db
      .insertInto('canary_runs')
      .values({ id: run.id, route: run.route, started_ms: startedMs, run_json: JSON.stringify(run) })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    const kept = this.#db
      .selectFrom('canary_runs')
      .select('id')
      .where('route', '=', run.route)
      .orderBy('started_ms', 'desc')
      .orderBy('id', 'desc')
      .limit(RUNS_KEPT_PER_ROUTE);
    await this.#db.deleteFrom('canary_runs').where('route', '=', run.route).where('id', 'not in', kept).execute();
  }

  /** The route's kept runs, newest first. */
  async runs(route: string): Promise<CanaryRun[]> {
    const rows = await this.#db
      .selectFrom('canary_runs')
      .select('run_json')
      .where('route', '=', route)
      .orderBy('started_ms', 'desc')
      .orderBy('id', 'desc')
      .limit(RUNS_KEPT_PER_ROUTE)
      .execute();
    return rows.map((row) => JSON.parse(row.run_json) as CanaryRun);
  }

  async learnedBaseline(route: string): Promise<LearnedBaseline> {
    const rows = await this.#db
      .selectFrom('canary_baseline_scores')
      .select('score')
      .where('route', '=', route)
      .orderBy('started_ms')
      .orderBy('run_id')
      .limit(BASELINE_RUNS)
      .execute();
    const scores = rows.map((row) => Number(row.score));
    return {
      baseline: scores.length < BASELINE_RUNS ? null : scores.reduce((sum, score) => sum + score, 0) / scores.length,
      runs: scores.length,
    };
  }

  /** Counts a run towards the route's `auto` baseline. */
  async learnFrom(run: CanaryRun): Promise<void> {
    await this.#db
      .insertInto('canary_baseline_scores')
      .values({ route: run.route, run_id: run.id, started_ms: Date.parse(run.started_at), score: run.score })
      .onConflict((conflict) => conflict.columns(['route', 'run_id']).doNothing())
      .execute();
  }

  /** Forgets a route's learned baseline: its next `BASELINE_RUNS` complete runs learn a new one. Resolves with whether there was one. */
  async resetBaseline(route: string): Promise<boolean> {
    const deleted = await this.#db.deleteFrom('canary_baseline_scores').where('route', '=', route).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }
}
