import type { SpendRow } from '../../src/core/spend-row.js';

/** A priced, billed attempt of key `key_a`; override any field. */
export function spendRow(overrides: Partial<SpendRow> = {}): SpendRow {
  return {
    requestId: 'req_1',
    attemptN: 1,
    keyId: 'key_a',
    keyName: 'team-a',
    route: 'chat',
    connection: 'anthropic',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    inputTokens: 10_000,
    outputTokens: 5_000,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    costMicros: 105_000,
    estimated: false,
    priced: true,
    origin: 'caller',
    createdMs: Date.parse('2025-06-01T12:00:00.000Z'),
    ...overrides,
  };
}

export function spendRows(count: number, prefix = 'req'): SpendRow[] {
  return Array.from({ length: count }, (_, index) => spendRow({ requestId: `${prefix}_${index}` }));
}
