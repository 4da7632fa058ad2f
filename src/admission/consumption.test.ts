import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../core/attempt-record.js';
import { consumptionOf } from './consumption.js';

function attempt(n: number, model: string, usage?: AttemptRecord['usage']): AttemptRecord {
  return { n, connection: 'c', provider: 'openai', model, kind: 'ok', startedMs: 0, latencyMs: 1, committed: false, malformedEvents: 0, ...(usage ? { usage } : {}) };
}

describe('consumptionOf', () => {
  it('sums tokens and cost over every attempt that used any, billed failures included', () => {
    const attempts = [
      attempt(1, 'priced', { inputTokens: 1_000, outputTokens: 200, estimated: true }),
      attempt(2, 'priced'),
      attempt(3, 'unpriced', { inputTokens: 1_000, outputTokens: 300 }),
    ];
    const price = { inputPerMtok: 2, outputPerMtok: 8 };
    expect(consumptionOf(attempts, (a) => (a.model === 'priced' ? price : undefined))).toEqual({ tokens: 2_500, costMicros: 3_600 });
  });

  it('is zero for a request that never reached a provider', () => {
    expect(consumptionOf([], () => undefined)).toEqual({ tokens: 0, costMicros: 0 });
  });
});
