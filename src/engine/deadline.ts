import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

/** An attempt that cannot get this much time is not started: it could not finish. */
export const MIN_ATTEMPT_MS = 50;

/**
 * The caller's deadline as an absolute time (docs/lifecycle.md): `x-deadline-ms` (epoch ms), else
 * `x-request-timeout-ms` (relative ms), else `x-stainless-timeout` (seconds, sent by the official
 * SDKs), else the route's `total_ms`. A caller may shorten the route's `total_ms` but never
 * lengthen it: the route's bound is what keeps a request from being held open for days.
 */
export function deadlineFromHeaders(headers: IncomingHttpHeaders, totalMs: number, nowMs: number): number {
  const routeDeadlineAtMs = nowMs + totalMs;
  return Math.min(callerDeadlineAtMs(headers, nowMs) ?? routeDeadlineAtMs, routeDeadlineAtMs);
}

function callerDeadlineAtMs(headers: IncomingHttpHeaders, nowMs: number): number | undefined {
  const absolute = numberHeader(headers, 'x-deadline-ms');
  if (absolute !== undefined) return absolute;
  const relativeMs = numberHeader(headers, 'x-request-timeout-ms');
  if (relativeMs !== undefined) return nowMs + relativeMs;
  const seconds = numberHeader(headers, 'x-stainless-timeout');
  if (seconds !== undefined) return nowMs + seconds * 1000;
  return undefined;
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
