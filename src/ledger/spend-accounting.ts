import type { Config } from '../config/schema.js';
import { deploymentPrice } from '../metering/deployment-price.js';
import type { RecordDraft } from '../records/record-draft.js';
import { BoundedLabels } from '../telemetry/bounded-labels.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { LedgerWriter } from './ledger-writer.js';
import { spendRowsOf } from './spend-rows-of.js';

/** Key names beyond this many share one `(other)` series in the spend metric. */
const MAX_KEY_LABELS = 100;

/**
 * Turns a finished request into ledger rows (queued for the batched writer, off the request path)
 * and the spend metric, and tells the record what each attempt cost.
 */
export class SpendAccounting {
  readonly #ledger: LedgerWriter;
  readonly #metrics: Metrics;
  readonly #config: () => Config;
  readonly #keyLabels = new BoundedLabels(MAX_KEY_LABELS);

  constructor(deps: { ledger: LedgerWriter; metrics: Metrics; config(): Config }) {
    this.#ledger = deps.ledger;
    this.#metrics = deps.metrics;
    this.#config = deps.config;
  }

  /** The priced cost of each attempt that consumed tokens, by attempt number. */
  account(draft: RecordDraft): ReadonlyMap<number, number> {
    const costs = new Map<number, number>();
    if (draft.attempts.length === 0) return costs;
    const config = this.#config();
    const rows = spendRowsOf({
      requestId: draft.id,
      keyId: draft.keyId,
      keyName: draft.keyName,
      route: draft.route,
      probe: draft.probe,
      createdMs: draft.startedAtMs,
      attempts: draft.attempts,
      priceOf: (attempt) => deploymentPrice(config, draft.route, attempt),
    });
    if (rows.length === 0) return costs;
    this.#ledger.enqueue(rows);
    const route = draft.routeLabel ?? '(none)';
    const key = draft.probe ? '(probe)' : draft.keyName === null ? '(none)' : this.#keyLabels.label(draft.keyName);
    const configuredTargets = draft.route === null ? undefined : config.routes[draft.route]?.targets;
    for (const row of rows) {
      if (!row.priced) continue;
      costs.set(row.attemptN, row.costMicros);
      // A target label only for configured targets: direct requests cannot mint new series.
      const configured = configuredTargets?.some((target) => target.connection === row.connection && target.model === row.model);
      const target = configured ? `${row.connection}/${row.model}` : `${row.connection}/*`;
      this.#metrics.spend.inc({ route, target, key }, row.costMicros / 1_000_000);
    }
    return costs;
  }
}
