import type { Logger } from 'pino';

/** One alert, as posted to `alerts.webhook_url` (JSON). */
export interface Alert {
  /** What happened: `ejected`, `structural`, `readmitted`, `limit_step_down`, `fallback_share`, `drill_failed`. */
  type: string;
  deployment?: string;
  connection?: string;
  route?: string;
  old_state?: string;
  new_state?: string;
  /** `drill_failed`: which step of the route's drill failed, its position (1-based) and how. */
  step?: string;
  position?: number;
  kind?: string;
  message?: string;
  reason: string;
  /** ISO 8601: when the condition began. */
  since: string;
}

const SEND_TIMEOUT_MS = 5_000;
const MAX_QUEUED = 1_000;

/**
 * Posts alerts to the configured webhook, one at a time, off the request path. A webhook that is
 * down never slows or breaks the gateway: failures are logged and the alert is dropped (alerts are
 * also logs and metrics, so nothing is lost from view).
 */
export class AlertSender {
  readonly #webhookUrl: () => string | undefined;
  readonly #logger: Logger;
  readonly #queue: Alert[] = [];
  #sending: Promise<void> | undefined;

  constructor(webhookUrl: () => string | undefined, logger: Logger) {
    this.#webhookUrl = webhookUrl;
    this.#logger = logger;
  }

  send(alert: Alert): void {
    this.#logger.warn({ alert }, `alert: ${alert.type} ${alert.deployment ?? alert.connection ?? alert.route ?? ''}`.trim());
    if (this.#webhookUrl() === undefined) return;
    if (this.#queue.length >= MAX_QUEUED) this.#queue.shift();
    this.#queue.push(alert);
    this.#sending ??= this.#drain().finally(() => {
      this.#sending = undefined;
    });
  }

  /** Resolves when every queued alert has been sent (or given up on). */
  async flush(): Promise<void> {
    while (this.#sending) await this.#sending;
  }

  async #drain(): Promise<void> {
    for (let alert = this.#queue.shift(); alert; alert = this.#queue.shift()) {
      const url = this.#webhookUrl();
      if (url === undefined) return;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(alert),
          signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        });
        await response.body?.cancel();
        if (!response.ok) this.#logger.error({ status: response.status, type: alert.type }, 'alert webhook refused an alert');
      } catch (error) {
        this.#logger.error({ err: error, type: alert.type }, 'alert webhook unreachable');
      }
    }
  }
}
