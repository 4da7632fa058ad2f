import { FailureKind } from '../../core/failure-kind.js';
import type { UpstreamFailure } from '../spec.js';

/**
 * The failure kind an HTTP status means on its own, before any provider error code refines
 * it (docs/errors.md). Unknown 4xx are the caller's problem; unknown 5xx are the provider's.
 */
export function kindFromStatus(status: number): UpstreamFailure['kind'] {
  if (status === 401 || status === 403) return FailureKind.credential;
  if (status === 402) return FailureKind.quotaExhausted;
  if (status === 404) return FailureKind.notFound;
  if (status === 408) return FailureKind.timeout;
  // A conflict is transient on the provider's side; the official SDKs retry it.
  if (status === 409) return FailureKind.serverError;
  if (status === 429) return FailureKind.rateLimit;
  if (status >= 400 && status < 500) return FailureKind.invalidRequest;
  return FailureKind.serverError;
}
