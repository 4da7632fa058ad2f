import type { Config } from '../config/schema.js';
import type { SpendRow } from '../core/spend-row.js';
import { spendRowsOf } from '../ledger/spend-rows-of.js';
import { deploymentPrice } from '../metering/deployment-price.js';
import type { RecordDraft } from '../records/record-draft.js';

/**
 * A finished request's attempts, priced once from one config snapshot: its ledger rows. The
 * admission is settled with their sum and the record shows their costs, so all three agree.
 */
export function priceAttempts(draft: RecordDraft, config: Config): SpendRow[] {
  if (draft.attempts.length === 0) return [];
  return spendRowsOf({
    requestId: draft.id,
    keyId: draft.keyId,
    keyName: draft.keyName,
    route: draft.route,
    origin: draft.origin,
    createdMs: draft.startedAtMs,
    attempts: draft.attempts,
    priceOf: (attempt) => deploymentPrice(config, draft.route, attempt),
  });
}
