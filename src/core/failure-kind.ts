/**
 * Every upstream attempt ends in exactly one of these kinds (docs/errors.md). The same string is the
 * record field, the metric label and the `code` of the error envelope, so it never changes.
 */
export const FailureKind = {
  ok: 'ok',
  rateLimit: 'rate_limit',
  quotaExhausted: 'quota_exhausted',
  serverError: 'server_error',
  /** A 200 whose answer has no content, no tool call and no refusal. */
  emptyAnswer: 'empty_answer',
  timeout: 'timeout',
  connection: 'connection',
  credential: 'credential',
  notFound: 'not_found',
  contextLength: 'context_length',
  moderation: 'moderation',
  invalidRequest: 'invalid_request',
  streamInterrupted: 'stream_interrupted',
  cancelled: 'cancelled',
  /** The gateway itself failed to prepare or send the attempt: the provider never saw it. */
  internalError: 'internal_error',
} as const;

export type FailureKind = (typeof FailureKind)[keyof typeof FailureKind];
