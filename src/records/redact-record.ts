import { redactSecrets } from './redact-secrets.js';
import type { RequestRecord } from '../core/request-record.js';

/**
 * The record with secrets removed from the text that can hold them: provider messages can echo
 * keys, and so can a refusal, whose message and model are the caller's text (a key pasted into
 * `model`). A record with neither is returned as it is, without asking for the secrets.
 */
export function redactRecord(record: RequestRecord, knownSecrets: () => ReadonlySet<string>): RequestRecord {
  const refused = record.error_message !== null;
  if (!refused && record.attempts.every((attempt) => attempt.message === null)) return record;
  const secrets = knownSecrets();
  return {
    ...record,
    ...(refused
      ? {
          error_message: redactSecrets(record.error_message!, secrets),
          model_requested: record.model_requested === null ? null : redactSecrets(record.model_requested, secrets),
        }
      : {}),
    attempts: record.attempts.map((attempt) => (attempt.message === null ? attempt : { ...attempt, message: redactSecrets(attempt.message, secrets) })),
  };
}
