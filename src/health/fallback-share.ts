import { WindowCounter } from './window-counter.js';

/** The share is judged over the last minute... */
const WINDOW_BUCKETS = 60;
const BUCKET_MS = 1_000;
/** ...and only with enough traffic to mean something: one fallback out of two is not a trend. */
export const MIN_REQUESTS_FOR_SHARE = 10;

/** The fleet's figures are used while this fresh: they come about once a second. */
const FLEET_FRESH_MS = 3_000;

interface RouteTraffic {
  served: WindowCounter;
  byFallback: WindowCounter;
  /** The whole fleet's last minute, when replicas share state. */
  fleet?: { served: number; byFallback: number; atMs: number };
  /** Since when the share has been above the alert threshold (undefined: it is not). */
  aboveSinceMs?: number;
  alerted: boolean;
}

/**
 * Per route, the share of answered requests served by a target other than the route's first
 * (a standby quietly carrying the traffic is an outage nobody was told about). Callers' answers
 * only: a drill or canary forcing or finding a fallback is not callers' traffic shifting, so the
 * gateway's own requests never reach `record`, nor does an idempotent replay (nothing was served
 * again). The fleet's figures are these counts summed, so they hold callers only too.
 */
export class FallbackShare {
  readonly #routes = new Map<string, RouteTraffic>();
  readonly #onRecorded: ((route: string, byFallback: boolean) => void) | undefined;

  /** `onRecorded` hears each answer counted here, so it can be added to the fleet's figures. */
  constructor(options: { onRecorded?: (route: string, byFallback: boolean) => void } = {}) {
    this.#onRecorded = options.onRecorded;
  }

  record(route: string, byFallback: boolean, nowMs: number): void {
    const traffic = this.#traffic(route);
    traffic.served.add(nowMs);
    if (byFallback) traffic.byFallback.add(nowMs);
    this.#onRecorded?.(route, byFallback);
  }

  /** The fleet's last minute for the route (this replica's answers included): the share follows it while fresh. */
  adoptFleet(route: string, served: number, byFallback: number, nowMs: number): void {
    this.#traffic(route).fleet = { served, byFallback, atMs: nowMs };
  }

  /** The share in the last minute (the fleet's, when known), or undefined below the minimum volume. */
  share(route: string, nowMs: number): number | undefined {
    const traffic = this.#routes.get(route);
    if (!traffic) return undefined;
    const { fleet } = traffic;
    const fresh = fleet !== undefined && nowMs - fleet.atMs <= FLEET_FRESH_MS;
    const served = fresh ? fleet.served : traffic.served.count(nowMs);
    const byFallback = fresh ? fleet.byFallback : traffic.byFallback.count(nowMs);
    return served < MIN_REQUESTS_FOR_SHARE ? undefined : byFallback / served;
  }

  #traffic(route: string): RouteTraffic {
    let traffic = this.#routes.get(route);
    if (!traffic) {
      traffic = { served: new WindowCounter(WINDOW_BUCKETS, BUCKET_MS), byFallback: new WindowCounter(WINDOW_BUCKETS, BUCKET_MS), alerted: false };
      this.#routes.set(route, traffic);
    }
    return traffic;
  }

  routes(): string[] {
    return [...this.#routes.keys()];
  }

  /**
   * Whether the share has now stayed above `threshold` for `forS` seconds — true once per episode
   * (the episode ends when the share falls back to or below the threshold).
   */
  crossedFor(route: string, threshold: number, forS: number, nowMs: number): boolean {
    const traffic = this.#routes.get(route);
    const share = this.share(route, nowMs);
    if (!traffic) return false;
    if (share === undefined || share <= threshold) {
      traffic.aboveSinceMs = undefined;
      traffic.alerted = false;
      return false;
    }
    traffic.aboveSinceMs ??= nowMs;
    if (traffic.alerted || nowMs - traffic.aboveSinceMs < forS * 1000) return false;
    traffic.alerted = true;
    return true;
  }
}
