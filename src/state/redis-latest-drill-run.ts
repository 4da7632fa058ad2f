import { LocalLatestDrillRun, type LatestDrillRun } from '../drills/latest-drill-run.js';
import type { DrillRun } from '../drills/drill-run.js';
import type { RedisLink } from './redis-link.js';

/**
 * The fleet's latest drill run in one Redis key, written after every step by the replica running
 * it, so any replica answers `GET /admin/drills` with the same run, progress included. This
 * replica's own copy answers while Redis does not.
 */
export class RedisLatestDrillRun implements LatestDrillRun {
  readonly #link: RedisLink;
  readonly #local = new LocalLatestDrillRun();

  constructor(link: RedisLink) {
    this.#link = link;
  }

  async save(run: DrillRun): Promise<void> {
    await this.#local.save(run);
    if (!this.#link.up) return;
    await this.#link.commands.set(this.#link.key('drill:latest'), JSON.stringify(run)).catch(() => undefined);
  }

  async load(): Promise<DrillRun | undefined> {
    if (this.#link.up) {
      try {
        const text = await this.#link.commands.get(this.#link.key('drill:latest'));
        if (text !== null) return JSON.parse(text) as DrillRun;
      } catch {
        // Redis stopped answering: this replica's copy below.
      }
    }
    return this.#local.load();
  }
}
