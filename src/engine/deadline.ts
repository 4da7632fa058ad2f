import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

/** An attempt that cannot get this much time is not started: it could not finish. */
export const MIN_ATTEMPT_MS = 50;

export interface DeadlineInputs {
  /** The route's `timeouts.total_ms`. */
  totalMs: number;
  nowMs: number;
  /** The SDK's own timeout (`x-stainless-timeout`), when it sent one the gateway could read. */
  sdkTimeoutMs: number | undefined;
}

/**
 * The caller's deadline as an absolute time (docs/lifecycle.md): `x-deadline-ms` (epoch ms), else
 * `x-request-timeout-ms` (relative ms), else the SDK's timeout, else the route's `total_ms`. A
 * caller may shorten the route's `total_ms` but never lengthen it: the route's bound is what keeps
 * a request from being held open for days. The first two are the gateway's own headers, which a
 * caller sets on purpose: a value there that is not a positive number is a 400 naming it.
 */
export function deadlineFromHeaders(headers: IncomingHttpHeaders, inputs: DeadlineInputs): number {
  const routeDeadlineAtMs = inputs.nowMs + inputs.totalMs;
  return Math.min(callerDeadlineAtMs(headers, inputs) ?? routeDeadlineAtMs, routeDeadlineAtMs);
}

function callerDeadlineAtMs(headers: IncomingHttpHeaders, { nowMs, sdkTimeoutMs }: DeadlineInputs): number | undefined {
  const absolute = numberHeader(headers, 'x-deadline-ms');
  if (absolute !== undefined) return absolute;
  const relativeMs = numberHeader(headers, 'x-request-timeout-ms');
  if (relativeMs !== undefined) return nowMs + relativeMs;
  return sdkTimeoutMs === undefined ? undefined : nowMs + sdkTimeoutMs;
}

function numberHeader(headers: IncomingHttpHeaders, name: string): number | undefined {
  const raw = headers[name];
  if (raw === undefined) return undefined;
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new GatewayError(`Header ${name} must be a positive number.`, { status: 400, code: 'invalid_request_error', param: name });
  }
  return value;
}
