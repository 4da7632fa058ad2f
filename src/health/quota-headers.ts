import { readHeader } from '../providers/shared/read-header.js';
import type { ResponseHeaders } from '../providers/spec.js';

export const QUOTA_NAMES = ['requests', 'tokens', 'inputTokens', 'outputTokens'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** One rate-limit window as a provider reported it; a field the headers did not give is absent. */
export interface QuotaWindow {
  limit?: number;
  remaining?: number;
  /** When the window is full again, as an absolute time. */
  resetAtMs?: number;
}

export type QuotaSnapshot = { [Name in QuotaName]?: QuotaWindow };

interface HeaderNames {
  limit: string;
  remaining: string;
  reset: string;
}

/** OpenAI puts the field before the window (`x-ratelimit-limit-requests`) and resets are durations. */
function openAiNames(window: string): HeaderNames {
  return {
    limit: `x-ratelimit-limit-${window}`,
    remaining: `x-ratelimit-remaining-${window}`,
    reset: `x-ratelimit-reset-${window}`,
  };
}

/** Anthropic puts the window first (`anthropic-ratelimit-requests-limit`) and resets are RFC 3339 times. */
function anthropicNames(window: string): HeaderNames {
  return {
    limit: `anthropic-ratelimit-${window}-limit`,
    remaining: `anthropic-ratelimit-${window}-remaining`,
    reset: `anthropic-ratelimit-${window}-reset`,
  };
}

const HEADER_NAMES: Readonly<Record<QuotaName, readonly HeaderNames[]>> = {
  requests: [anthropicNames('requests'), openAiNames('requests')],
  tokens: [anthropicNames('tokens'), openAiNames('tokens')],
  inputTokens: [anthropicNames('input-tokens')],
  outputTokens: [anthropicNames('output-tokens')],
};

/**
 * The rate-limit headers of one response, normalised (docs/health.md), or undefined when it carried
 * none. A window is kept only when its limit or remaining count is known: a reset time alone
 * says nothing. Negative counts (Azure sends -1) mean "unknown" and are dropped.
 */
export function parseQuotaHeaders(headers: ResponseHeaders, nowMs: number): QuotaSnapshot | undefined {
  const snapshot: QuotaSnapshot = {};
  let found = false;
  for (const name of QUOTA_NAMES) {
    for (const names of HEADER_NAMES[name]) {
      const window = parseWindow(headers, names, nowMs);
      if (window === undefined) continue;
      snapshot[name] = window;
      found = true;
      break;
    }
  }
  return found ? snapshot : undefined;
}

function parseWindow(headers: ResponseHeaders, names: HeaderNames, nowMs: number): QuotaWindow | undefined {
  const limit = parseCount(readHeader(headers, names.limit));
  const remaining = parseCount(readHeader(headers, names.remaining));
  if (limit === undefined && remaining === undefined) return undefined;
  const window: QuotaWindow = {};
  if (limit !== undefined) window.limit = limit;
  if (remaining !== undefined) window.remaining = remaining;
  const resetAtMs = parseResetAtMs(readHeader(headers, names.reset), nowMs);
  if (resetAtMs !== undefined) window.resetAtMs = resetAtMs;
  return window;
}

function parseCount(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  return trimmed !== undefined && /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}

const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * A reset given either way: as a duration from now or as an RFC 3339 time. Both forms are taken
 * from either family because OpenAI-compatible servers do not all follow OpenAI's choice.
 */
function parseResetAtMs(text: string | undefined, nowMs: number): number | undefined {
  const trimmed = text?.trim();
  if (trimmed === undefined) return undefined;
  const durationMs = parseDurationMs(trimmed);
  if (durationMs !== undefined) return nowMs + durationMs;
  if (!RFC_3339.test(trimmed)) return undefined;
  const atMs = Date.parse(trimmed);
  return Number.isNaN(atMs) ? undefined : atMs;
}

const UNIT_MS: ReadonlyMap<string, number> = new Map([
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
  ['us', 0.001],
  ['µs', 0.001],
  ['μs', 0.001],
  ['ns', 0.000_001],
]);

/** A number and a unit; `ms` is tried before `m`, or `20ms` would read as 20 minutes and a stray `s`. */
const DURATION_PART = '(\\d+(?:\\.\\d*)?|\\.\\d+)(h|ms|m|s|us|µs|μs|ns)';
const DURATION = new RegExp(`^(?:${DURATION_PART})+$`);
const DURATION_PARTS = new RegExp(DURATION_PART, 'g');
const SECONDS = /^\d+(\.\d+)?$/;

/**
 * A duration in Go's notation, as OpenAI sends resets (`6m0s`, `1s`, `20ms`, `0.5s`,
 * `1h2m3.5s`), in whole milliseconds. A bare number is taken as seconds, the unit of
 * `retry-after`, since some OpenAI-compatible servers send that. Undefined when not a duration.
 */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (SECONDS.test(trimmed)) return Math.round(Number(trimmed) * 1_000);
  if (!DURATION.test(trimmed)) return undefined;
  let totalMs = 0;
  for (const [, amount, unit] of trimmed.matchAll(DURATION_PARTS)) {
    totalMs += Number(amount) * (UNIT_MS.get(unit ?? '') ?? 0);
  }
  return Math.round(totalMs);
}
