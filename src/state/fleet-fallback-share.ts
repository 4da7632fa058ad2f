import type { FallbackShare } from '../health/fallback-share.js';
import { healthScripts, type HealthScripts } from './health-scripts.js';
import type { RedisLink } from './redis-link.js';

const FLUSH_EVERY_MS = 1_000;
/** Past the one-minute window, with room for a late flush. */
const COUNTS_TTL_S = 120;

/**
 * The fallback share of the whole fleet: each replica counts its answers locally and, once a
 * second, adds them to per-second counts in Redis in one call per route, which answers with the
 * fleet's last minute; the route's share (gauge and alert) then follows the fleet's figures.
 * While Redis is down the counts stay local and the share is this replica's own.
 */
export class FleetFallbackShare {
  readonly #link: RedisLink;
  readonly #scripts: HealthScripts;
  readonly #share: FallbackShare;
  readonly #counted = new Map<string, { served: number; byFallback: number }>();
  readonly #timer: NodeJS.Timeout;

  constructor(link: RedisLink, share: FallbackShare) {
    this.#link = link;
    this.#share = share;
    this.#scripts = healthScripts(link.commands);
    this.#timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS).unref();
  }

  /** Counts one answer served here, to be added at the next flush (the `FallbackShare`'s `onRecorded`). */
  count(route: string, byFallback: boolean): void {
    const counted = this.#counted.get(route) ?? { served: 0, byFallback: 0 };
    counted.served += 1;
    if (byFallback) counted.byFallback += 1;
    this.#counted.set(route, counted);
  }

  /** Adds what was counted since the last flush and takes the fleet's figures for every route known here. */
  async flush(): Promise<void> {
    const counted = new Map(this.#counted);
    this.#counted.clear();
    if (!this.#link.up) return;
    await Promise.all(
      this.#share.routes().map(async (route) => {
        const own = counted.get(route) ?? { served: 0, byFallback: 0 };
        try {
          const [served, byFallback] = await this.#scripts.fallbackCounts(this.#link.key(`fallback-share:${route}`), own.served, own.byFallback, COUNTS_TTL_S);
          this.#share.adoptFleet(route, served, byFallback, Date.now());
        } catch {
          // Redis went away mid-flush: these answers stay counted locally only.
        }
      }),
    );
  }

  close(): void {
    clearInterval(this.#timer);
  }
}
