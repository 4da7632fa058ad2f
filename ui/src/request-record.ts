/**
 * A request record as `GET /admin/requests` and `GET /admin/requests/:id` give it: the gateway's
 * own types (type-only, so nothing of the gateway is bundled).
 */
export type { AttemptRecordEntry as AttemptEntry, RequestRecord, SkippedTargetEntry as SkippedEntry } from '../../src/core/request-record.js';
