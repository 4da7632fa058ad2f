import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import type { RequestRecord } from '../core/request-record.js';
import type { RecordDraft } from '../records/record-draft.js';
import { logRequest } from '../telemetry/log-request.js';
import type { Metrics } from '../telemetry/metrics.js';
import { observeRequest } from '../telemetry/observe-request.js';
import type { RequestSpans } from '../telemetry/request-spans.js';
import { keepRecord, type KeepRecordDeps } from './keep-record.js';
import { priceAttempts } from './price-attempts.js';

export interface GatewayRecordDeps extends KeepRecordDeps {
  metrics: Metrics;
  logger: Logger;
  spans?: RequestSpans | undefined;
}

/**
 * The end of a request the gateway made itself (a probe, a drill step, a canary prompt): priced,
 * kept with its spend, logged, traced and counted like a caller's, each under the draft's origin.
 * Nothing here touches the figures that describe callers (the fallback share, admissions).
 */
export function keepGatewayRecord(draft: RecordDraft, config: Config, deps: GatewayRecordDeps): RequestRecord {
  const record = keepRecord(draft, priceAttempts(draft, config), config, deps);
  logRequest(deps.logger, record, () => knownSecrets(config));
  deps.spans?.export(record, () => knownSecrets(config));
  observeRequest(deps.metrics, record, {
    routeLabel: draft.routeLabel,
    malformedEvents: draft.attempts.reduce((sum, attempt) => sum + attempt.malformedEvents, 0),
  });
  return record;
}
