/**
 * The directive language: `model?key=value&…` plus an `x-mock` header in the same syntax (the
 * header wins). Parsing is strict, so a typo such as `statsu=503` is answered with a 400 instead
 * of being silently served as a healthy request.
 */

const errorNames = [
  'insufficient_quota',
  'context_length',
  'content_policy',
  'rate_limit',
  'overloaded',
  'spend_cap',
  'spend_limit',
  'credential',
] as const;
export type ErrorName = (typeof errorNames)[number];

const inbandErrorKinds = ['overloaded', 'server_error'] as const;
export type InbandErrorKind = (typeof inbandErrorKinds)[number];

const finishDirectives = ['stop', 'length', 'content_filter'] as const;
export type FinishDirective = (typeof finishDirectives)[number];

const cacheTtls = ['5m', '1h'] as const;

/** Prompt tokens the answer reports as read from and written to the provider's prompt cache. */
export interface CacheUsage {
  readTokens: number;
  writeTokens: number;
  /** Which cache the writes went to (Anthropic and Bedrock report writes by TTL). */
  writeTtl: (typeof cacheTtls)[number];
}

/** What the answer looks like when it is served; applies whether or not a fault is active. */
export interface AnswerShape {
  chunks: number;
  chunkMs: number;
  toolCall?: string;
  finish?: FinishDirective;
  /** The share (0..1) of the text answer's words replaced, for canaries to see a weaker model. */
  degrade?: number;
  /** `limitAfterWindow`: the limit reported once the fault window (`times`, `flap_down_s`) has passed. */
  rateLimit?: { limit: number; remaining: number; resetS: number; limitAfterWindow?: number };
  cache: CacheUsage;
}

/** Misbehaviour, subject to the fault window (`times`, `flap_down_s`). */
export interface Faults {
  status?: number;
  errorName?: ErrorName;
  /** Kept as written: the header carries the caller's text (`1.5` stays `1.5`). */
  retryAfterS?: string;
  retryAfterMs?: number;
  reset: boolean;
  silence: boolean;
  headersDelayMs: number;
  firstTokenMs: number;
  cutAfter?: number;
  stallAfter?: number;
  inband?: { kind: InbandErrorKind; after: number };
  malformedAfter?: number;
  noDone: boolean;
}

export interface FaultWindowSpec {
  times?: number;
  flapDownMs?: number;
}

export interface Directives {
  shape: AnswerShape;
  faults: Faults;
  window: FaultWindowSpec;
}

export type ParsedDirectives =
  | { ok: true; name: string; raw: Record<string, string>; directives: Directives }
  | { ok: false; name: string; raw: Record<string, string>; problem: string };

export const noFaults: Faults = Object.freeze({
  reset: false,
  silence: false,
  headersDelayMs: 0,
  firstTokenMs: 0,
  noDone: false,
});

const defaultChunks = 8;
const maxChunks = 100_000;
const defaultRateLimitResetS = 60;

const knownKeys = new Set([
  'status',
  'error',
  'retry_after',
  'retry_after_ms',
  'times',
  'flap_down_s',
  'reset',
  'silence',
  'headers_delay_ms',
  'first_token_ms',
  'chunks',
  'chunk_ms',
  'cut_after',
  'stall_after',
  'inband_error',
  'error_after',
  'malformed_after',
  'no_done',
  'finish',
  'tool_call',
  'ratelimit',
  'remaining',
  'ratelimit_reset_s',
  'ratelimit_after',
  'degrade',
  'cached',
  'cache_write',
  'cache_ttl',
]);

class DirectiveProblem extends Error {}

/** Splits the model string at `?` and merges its directives with the `x-mock` header's. */
export function parseDirectives(model: string, header: string | undefined): ParsedDirectives {
  const queryStart = model.indexOf('?');
  const name = queryStart === -1 ? model : model.slice(0, queryStart);
  const raw: Record<string, string> = {};
  if (queryStart !== -1) collect(model.slice(queryStart + 1), raw);
  if (header) collect(header, raw);
  try {
    return { ok: true, name, raw, directives: interpret(raw) };
  } catch (error) {
    if (error instanceof DirectiveProblem) return { ok: false, name, raw, problem: error.message };
    throw error;
  }
}

function collect(query: string, into: Record<string, string>): void {
  for (const [key, value] of new URLSearchParams(query)) into[key] = value;
}

function interpret(raw: Record<string, string>): Directives {
  for (const key of Object.keys(raw)) {
    if (!knownKeys.has(key)) throw new DirectiveProblem(`unknown directive "${key}"`);
  }
  const shape: AnswerShape = {
    chunks: integer(raw, 'chunks', 0, maxChunks) ?? defaultChunks,
    chunkMs: integer(raw, 'chunk_ms') ?? 0,
    toolCall: raw.tool_call || undefined,
    finish: oneOf(raw, 'finish', finishDirectives),
    degrade: share(raw, 'degrade'),
    cache: {
      readTokens: integer(raw, 'cached') ?? 0,
      writeTokens: integer(raw, 'cache_write') ?? 0,
      writeTtl: oneOf(raw, 'cache_ttl', cacheTtls) ?? '5m',
    },
  };
  const limit = integer(raw, 'ratelimit');
  if (limit !== undefined) {
    shape.rateLimit = {
      limit,
      remaining: integer(raw, 'remaining') ?? Math.max(0, limit - 1),
      resetS: decimal(raw, 'ratelimit_reset_s') ?? defaultRateLimitResetS,
      limitAfterWindow: integer(raw, 'ratelimit_after'),
    };
  }

  const faults: Faults = {
    status: integer(raw, 'status', 400, 599),
    errorName: oneOf(raw, 'error', errorNames),
    retryAfterS: decimal(raw, 'retry_after') === undefined ? undefined : raw.retry_after,
    retryAfterMs: integer(raw, 'retry_after_ms'),
    reset: flag(raw, 'reset'),
    silence: flag(raw, 'silence'),
    headersDelayMs: integer(raw, 'headers_delay_ms') ?? 0,
    firstTokenMs: integer(raw, 'first_token_ms') ?? 0,
    cutAfter: integer(raw, 'cut_after'),
    stallAfter: integer(raw, 'stall_after'),
    malformedAfter: integer(raw, 'malformed_after'),
    noDone: flag(raw, 'no_done'),
  };
  const inbandKind = oneOf(raw, 'inband_error', inbandErrorKinds);
  const errorAfter = integer(raw, 'error_after');
  if (inbandKind) faults.inband = { kind: inbandKind, after: errorAfter ?? 0 };
  else if (errorAfter !== undefined) throw new DirectiveProblem('error_after needs inband_error');

  const flapDownS = decimal(raw, 'flap_down_s');
  const window: FaultWindowSpec = {
    times: integer(raw, 'times'),
    flapDownMs: flapDownS === undefined ? undefined : Math.round(flapDownS * 1000),
  };
  return { shape, faults, window };
}

function integer(raw: Record<string, string>, key: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const text = raw[key];
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    throw new DirectiveProblem(`${key} must be an integer from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

function decimal(raw: Record<string, string>, key: string): number | undefined {
  const text = raw[key];
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new DirectiveProblem(`${key} must be a non-negative number, got "${text}"`);
  }
  return value;
}

function share(raw: Record<string, string>, key: string): number | undefined {
  const value = decimal(raw, key);
  if (value !== undefined && value > 1) throw new DirectiveProblem(`${key} must be a share from 0 to 1, got "${raw[key]}"`);
  return value;
}

function flag(raw: Record<string, string>, key: string): boolean {
  const text = raw[key];
  if (text === undefined) return false;
  if (text === '' || text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false') return false;
  throw new DirectiveProblem(`${key} is a flag (write "${key}" or "${key}=false"), got "${text}"`);
}

function oneOf<T extends string>(raw: Record<string, string>, key: string, allowed: readonly T[]): T | undefined {
  const text = raw[key];
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) {
    throw new DirectiveProblem(`${key} must be one of ${allowed.join(', ')}, got "${text}"`);
  }
  return text as T;
}
