import type { Logger } from 'pino';
import { knownSecrets } from '../config/known-secrets.js';
import type { Config } from '../config/schema.js';
import type { RequestRecord } from '../core/request-record.js';
import type { SpendRow } from '../core/spend-row.js';
import type { SpendAccounting } from '../ledger/spend-accounting.js';
import type { RecordDraft } from '../records/record-draft.js';
import type { RecordStore } from '../records/record-store.js';
import { logRequest } from '../telemetry/log-request.js';
import type { Metrics } from '../telemetry/metrics.js';
import { observeRequest } from '../telemetry/observe-request.js';
import type { RequestSpans } from '../telemetry/request-spans.js';
import { priceAttempts } from './price-attempts.js';

export interface KeepRecordDeps {
  spendAccounting: SpendAccounting;
  records: RecordStore;
  metrics: Metrics;
  logger: Logger;
  spans?: RequestSpans | undefined;
}

/**
 * The end every request comes to, a caller's (from `finishRequest`) or the gateway's own (a probe,
 * a drill step, a canary prompt): its attempts priced once from the request's config snapshot —
 * `rows` when the caller's end priced them already, to settle its admission with the same sum —
 * kept as spend rows with the record, logged, traced and counted, each under the draft's origin.
 * Sinks are only enqueued here: nothing waits for a store.
 */
export function keepRecord(draft: RecordDraft, config: Config, deps: KeepRecordDeps, rows: readonly SpendRow[] = priceAttempts(draft, config)): RequestRecord {
  const record = draft.toRecord(Date.now(), deps.spendAccounting.account(draft, rows, config));
  deps.records.add(record);
  const secrets = () => knownSecrets(config);
  logRequest(deps.logger, record, secrets);
  deps.spans?.export(record, secrets);
  observeRequest(deps.metrics, record, {
    routeLabel: draft.routeLabel,
    malformedEvents: draft.attempts.reduce((sum, attempt) => sum + attempt.malformedEvents, 0),
  });
  return record;
}
