import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FailureKind } from './failure-kind.js';
import { FAILURE_POLICY, ruleFor, type KindPolicy } from './failure-policy.js';

const WHEN_WORDS = { any: 'any attempt', every: 'every attempt', every_transient: 'every transient failure', otherwise: 'otherwise' } as const;

/** A row of the code's table as docs/errors.md writes it. */
function asDocumented(kind: string, policy: KindPolicy): string[] {
  const yesNo = (value: boolean) => (value ? 'yes' : 'no');
  return [
    `\`${kind}\``,
    policy.meaning,
    policy.rule,
    yesNo(policy.routeMayOverride),
    yesNo(policy.sameTargetRetry),
    yesNo(policy.countsTowardEjection),
    yesNo(policy.cools),
    yesNo(policy.waitHelps),
    yesNo(policy.transient),
    yesNo(policy.narrowsToLargerContext),
    policy.structural ?? 'no',
    String(policy.final.status),
    `\`${policy.final.code}\``,
    WHEN_WORDS[policy.final.when],
  ];
}

/** The rows of the first markdown table whose header starts with `| kind | meaning |`. */
function documentedRows(markdown: string): string[][] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| kind | meaning |'));
  expect(header, 'docs/errors.md has the table of kinds').toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split('|').map((cell) => cell.trim()));
  }
  return rows;
}

describe('docs/errors.md', () => {
  it('holds the failure-policy table row for row, column for column', () => {
    const markdown = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const header = markdown.split('\n').find((line) => line.startsWith('| kind | meaning |'))!;
    expect(header).toBe('| kind | meaning | rule | override | same-target retry | ejection | cools | waits | transient | larger context | structural | final status | final code | final when |');
    const expected = Object.entries(FAILURE_POLICY).map(([kind, policy]) => asDocumented(kind, policy));
    expect(documentedRows(markdown)).toEqual(expected);
  });
});

describe('the failure policy table', () => {
  it('covers every kind but ok, with the default rules of docs/errors.md', () => {
    const kinds = Object.values(FailureKind).filter((kind) => kind !== 'ok');
    expect(Object.keys(FAILURE_POLICY).sort()).toEqual([...kinds].sort());
    expect(Object.fromEntries(Object.entries(FAILURE_POLICY).map(([kind, policy]) => [kind, policy.rule]))).toEqual({
      rate_limit: 'failover',
      quota_exhausted: 'failover',
      server_error: 'retry',
      timeout: 'failover',
      connection: 'retry',
      credential: 'failover',
      not_found: 'failover',
      context_length: 'failover',
      moderation: 'stop',
      invalid_request: 'failover',
      stream_interrupted: 'stop',
      cancelled: 'stop',
      internal_error: 'failover',
      empty_answer: 'failover',
    });
  });

  it('only server errors, timeouts, connection failures and broken streams count toward ejection', () => {
    const counting = Object.entries(FAILURE_POLICY).filter(([, policy]) => policy.countsTowardEjection).map(([kind]) => kind);
    expect(counting.sort()).toEqual(['connection', 'server_error', 'stream_interrupted', 'timeout']);
  });

  it('timeouts and the gateway\'s own failures are never retried on the same target', () => {
    const neverRetried = Object.entries(FAILURE_POLICY).filter(([, policy]) => !policy.sameTargetRetry).map(([kind]) => kind);
    expect(neverRetried.sort()).toEqual(['internal_error', 'timeout']);
  });

  it('a route override wins, except over a caller who went away', () => {
    expect(ruleFor('rate_limit', { on: {} })).toBe('failover');
    expect(ruleFor('rate_limit', { on: { rate_limit: 'stop' } })).toBe('stop');
    expect(ruleFor('cancelled', { on: { cancelled: 'failover' } })).toBe('stop');
  });

  it('throttling cools; quota, a missing model and a rejected key are structural, the key for its whole connection', () => {
    const cooling = Object.entries(FAILURE_POLICY).filter(([, policy]) => policy.cools).map(([kind]) => kind);
    expect(cooling.sort()).toEqual(['quota_exhausted', 'rate_limit']);
    const structural = Object.fromEntries(Object.entries(FAILURE_POLICY).filter(([, policy]) => policy.structural !== null).map(([kind, policy]) => [kind, policy.structural]));
    expect(structural).toEqual({ quota_exhausted: 'deployment', not_found: 'deployment', credential: 'connection' });
  });
});
