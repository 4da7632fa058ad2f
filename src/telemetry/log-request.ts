import type { Logger } from 'pino';
import { redactRecord } from '../records/redact-record.js';
import type { RequestRecord } from '../core/request-record.js';

/** The message of the one log entry every finished request gets. */
export const REQUEST_LOG_MESSAGE = 'request';

/**
 * One `request` log entry per finished request, refused ones included: what a person watching
 * the log needs to follow traffic (the record, at `GET /admin/requests/:id`, has the rest),
 * redacted as the stored record is.
 */
export function logRequest(logger: Logger, record: RequestRecord, knownSecrets: () => ReadonlySet<string>): void {
  if (!logger.isLevelEnabled('info')) return;
  const redacted = redactRecord(record, knownSecrets);
  logger.info(
    {
      request_id: redacted.id,
      origin: redacted.origin,
      status: redacted.status,
      http_status: redacted.http_status,
      route: redacted.route,
      model_requested: redacted.model_requested,
      served_by: redacted.served ? `${redacted.served.connection}/${redacted.served.model}` : null,
      attempts: redacted.attempts.length,
      latency_ms: redacted.latency_ms,
      stream: redacted.stream,
      key_name: redacted.key_name,
      error_code: redacted.error_code,
      error_message: redacted.error_message,
    },
    REQUEST_LOG_MESSAGE,
  );
}
