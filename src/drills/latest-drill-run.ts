import type { DrillRun } from './drill-run.js';

/** Where the latest drill run is kept, as it runs (saved after every step), for `GET /admin/drills`. */
export interface LatestDrillRun {
  save(run: DrillRun): Promise<void>;
  load(): Promise<DrillRun | undefined>;
}

/** A gateway alone: the latest run in this process (a restart forgets it; its records stay). */
export class LocalLatestDrillRun implements LatestDrillRun {
  #run: DrillRun | undefined;

  async save(run: DrillRun): Promise<void> {
    // A copy: the running drill goes on adding steps to its own.
    this.#run = structuredClone(run);
  }

  async load(): Promise<DrillRun | undefined> {
    return this.#run;
  }
}
