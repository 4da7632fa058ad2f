import { REQUEST_ORIGINS } from '../core/request-origin.js';
import type { OriginChoice } from './admin-api-types.js';
import { badParameter } from './bad-parameter.js';

const ORIGIN_CHOICES: readonly OriginChoice[] = [...REQUEST_ORIGINS, 'all'];

/**
 * `origin=` of an admin read: one origin or `all`, callers' when not given — the gateway's own
 * traffic (above all its recovery probes) would otherwise bury the callers'. Anything else is a
 * 400 naming the parameter.
 */
export function originParameter(query: URLSearchParams): OriginChoice {
  const asked = query.get('origin') ?? 'caller';
  const origin = ORIGIN_CHOICES.find((candidate) => candidate === asked);
  if (origin === undefined) throw badParameter('origin', `Query parameter "origin" must be one of ${ORIGIN_CHOICES.join(', ')} (got "${asked}").`);
  return origin;
}
