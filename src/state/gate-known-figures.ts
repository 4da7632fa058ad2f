import type { GateSubject } from '../admission/admission-gate.js';
import type { BucketLevels } from '../admission/rate-limiter.js';

/** The last figures Redis gave are kept for this many keys and teams, the least recently seen forgotten first. */
const MAX_KNOWN_KEYS = 100_000;

/** What Redis last said of a key or a team: where a local gate starts from while Redis is out of reach. */
export interface KnownFigures {
  levels: BucketLevels;
  /** The period, spend and open reservations, when the key has a budget. */
  budget?: { periodStartMs: number; committedMicros: number };
}

/**
 * The figures of each subject in the admit script's reply — `[verdict, detail, now, by`, then four per
 * subject: `requests level, tokens level, spent, reserved]` — by subject id.
 */
export function figuresOfAdmitReply(subjects: readonly GateSubject[], reply: readonly string[]): [id: string, figures: KnownFigures][] {
  const now = Number(reply[2]);
  return subjects.map((subject, index) => {
    const [requestsLevel, tokensLevel, spent, reserved] = reply.slice(4 + index * 4, 8 + index * 4);
    const figures: KnownFigures = {
      levels: {
        atMs: now,
        ...(subject.rpm && requestsLevel ? { requests: { level: Number(requestsLevel), limit: subject.rpm } } : {}),
        ...(subject.tpm && tokensLevel ? { tokens: { level: Number(tokensLevel), limit: subject.tpm } } : {}),
      },
    };
    if (subject.budget && spent && reserved) {
      figures.budget = { periodStartMs: subject.budget.periodStartMs, committedMicros: Number(spent) + Number(reserved) };
    }
    return [subject.id, figures];
  });
}

/** Sets a key's entry as the most recently seen (last), forgetting the key idle longest past `MAX_KNOWN_KEYS`. */
export function keepLatest<Value>(entries: Map<string, Value>, keyId: string, value: Value): void {
  entries.delete(keyId);
  entries.set(keyId, value);
  if (entries.size > MAX_KNOWN_KEYS) entries.delete(entries.keys().next().value as string);
}
