import type { Config } from '../config/schema.js';
import { deploymentKey } from '../core/deployment-key.js';
import { configuredDeployments } from '../health/configured-deployments.js';
import type { RecordDraft } from '../records/record-draft.js';
import { BoundedLabels } from '../telemetry/bounded-labels.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { LedgerWriter } from './ledger-writer.js';
import type { SpendRow } from '../core/spend-row.js';

/** Key names beyond this many share one `(other)` series in the spend metric. */
const MAX_KEY_LABELS = 100;

/**
 * Queues a finished request's ledger rows for the batched writer (off the request path), counts
 * the spend and cache metrics, and tells the record what each attempt cost.
 */
export class SpendAccounting {
  readonly #ledger: LedgerWriter;
  readonly #metrics: Metrics;
  readonly #keyLabels = new BoundedLabels(MAX_KEY_LABELS);
  /** The latest snapshot's `direct.max_deployments`: unconfigured deployments past it share `other`, as in the health metrics. */
  #maxDirectDeployments = 0;
  readonly #directDeploymentLabels = new BoundedLabels(() => this.#maxDirectDeployments, 'other');

  constructor(deps: { ledger: LedgerWriter; metrics: Metrics }) {
    this.#ledger = deps.ledger;
    this.#metrics = deps.metrics;
  }

  /** `rows` are the request's priced attempts; `config` is the snapshot they were priced from. The priced cost of each, by attempt number. */
  account(draft: RecordDraft, rows: readonly SpendRow[], config: Config): ReadonlyMap<number, number> {
    const costs = new Map<number, number>();
    if (rows.length === 0) return costs;
    this.#ledger.enqueue(rows);
    const route = draft.routeLabel ?? '(none)';
    const key = draft.origin !== 'caller' ? `(${draft.origin})` : draft.keyName === null ? '(none)' : this.#keyLabels.label(draft.keyName);
    const configuredTargets = draft.route === null ? undefined : config.routes[draft.route]?.targets;
    for (const row of rows) {
      this.#countCacheTokens(row, config);
      if (!row.priced) continue;
      costs.set(row.attemptN, row.costMicros);
      // A target label only for configured targets: direct requests cannot mint new series.
      const configured = configuredTargets?.some((target) => target.connection === row.connection && target.model === row.model);
      const target = configured ? `${row.connection}/${row.model}` : `${row.connection}/*`;
      this.#metrics.spend.inc({ route, target, key }, row.costMicros / 1_000_000);
    }
    return costs;
  }

  #countCacheTokens(row: SpendRow, config: Config): void {
    if (row.cacheReadTokens === 0 && row.cacheWriteTokens === 0) return;
    this.#maxDirectDeployments = config.direct.max_deployments;
    const key = deploymentKey(row.connection, row.model);
    const deployment = configuredDeployments(config).has(key) ? key : this.#directDeploymentLabels.label(key);
    if (row.cacheReadTokens > 0) this.#metrics.cacheTokens.inc({ deployment, kind: 'read' }, row.cacheReadTokens);
    if (row.cacheWriteTokens > 0) this.#metrics.cacheTokens.inc({ deployment, kind: 'write' }, row.cacheWriteTokens);
  }
}
