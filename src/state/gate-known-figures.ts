import type { GateRequest } from '../admission/admission-gate.js';
import type { BucketLevels } from '../admission/rate-limiter.js';

/** The last figures Redis gave are kept for this many keys, the least recently seen forgotten first. */
const MAX_KNOWN_KEYS = 100_000;

/** What Redis last said of a key: where a local gate starts from while Redis is out of reach. */
export interface KnownFigures {
  levels: BucketLevels;
  /** The period, spend and open reservations, when the key has a budget. */
  budget?: { periodStartMs: number; committedMicros: number };
}

/** The figures in the admit script's reply: `[verdict, reason, now, requests level, tokens level, spent, reserved]`. */
export function figuresOfAdmitReply(request: GateRequest, reply: readonly string[]): KnownFigures {
  const [, , now, requestsLevel, tokensLevel, spent, reserved] = reply;
  const figures: KnownFigures = {
    levels: {
      atMs: Number(now),
      ...(request.rpm && requestsLevel ? { requests: { level: Number(requestsLevel), limit: request.rpm } } : {}),
      ...(request.tpm && tokensLevel ? { tokens: { level: Number(tokensLevel), limit: request.tpm } } : {}),
    },
  };
  if (request.budget && spent && reserved) {
    figures.budget = { periodStartMs: request.budget.periodStartMs, committedMicros: Number(spent) + Number(reserved) };
  }
  return figures;
}

/** Sets a key's entry as the most recently seen (last), forgetting the key idle longest past `MAX_KNOWN_KEYS`. */
export function keepLatest<Value>(entries: Map<string, Value>, keyId: string, value: Value): void {
  entries.delete(keyId);
  entries.set(keyId, value);
  if (entries.size > MAX_KNOWN_KEYS) entries.delete(entries.keys().next().value as string);
}
