import type { FailureKind } from '../core/failure-kind.js';

/** Machine-readable error codes the gateway itself raises, beside the failure kinds. */
export type GatewayErrorCode =
  | FailureKind
  | 'invalid_json'
  | 'invalid_api_key'
  | 'invalid_request_error'
  | 'model_not_found'
  | 'request_too_large'
  | 'request_timeout'
  | 'not_found'
  | 'method_not_allowed'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'overloaded'
  | 'model_not_allowed'
  | 'model_not_supported'
  | 'gateway_unavailable'
  | 'rate_limit_exceeded'
  | 'budget_exceeded'
  | 'idempotency_key_in_use'
  | 'idempotency_key_mismatch'
  | 'previous_response_not_found'
  | 'websocket_not_supported'
  | 'shutdown'
  | 'permission_denied'
  | 'csrf_token_invalid'
  | 'conflict'
  | 'internal_error';

export interface GatewayErrorOptions {
  status: number;
  code: GatewayErrorCode;
  /** The OpenAI-envelope `type` (e.g. `invalid_request_error`); defaults to the code. */
  type?: string;
  /** The request field at fault, e.g. `messages[0].role`. */
  param?: string;
  retryAfterMs?: number;
  cause?: unknown;
}

/** An error the gateway answers with directly; it never reaches a provider. */
export class GatewayError extends Error {
  readonly status: number;
  readonly code: GatewayErrorCode;
  readonly type: string;
  readonly param: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: GatewayErrorOptions) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.status = options.status;
    this.code = options.code;
    this.type = options.type ?? options.code;
    this.param = options.param;
    this.retryAfterMs = options.retryAfterMs;
  }
}
