import { describe, expect, it } from 'vitest';
import type { ConnectionConfig } from '../config/schema.js';
import type { ProviderAdapter } from '../providers/spec.js';
import type { Transport } from '../transport/send-upstream.js';
import type { AttemptRecord } from './attempt-record.js';
import { Cancellation } from './cancellation.js';
import { runAttempt, type Operation } from './run-attempt.js';

const connection = { provider: 'openai', api_key: 'key-1234567890', alternate_hosts: [], max_in_flight: 8, optional: false } as unknown as ConnectionConfig;

/** A transport that must never be reached. */
const unreachable = {
  send: () => {
    throw new Error('nothing may be sent');
  },
} as unknown as Transport;

function input(onSettled: (record: AttemptRecord) => void) {
  const nowMs = Date.now();
  return {
    n: 1,
    target: { connectionName: 'c', connection, routedModel: 'm', modelChange: false, config: { connection: 'c', model: 'm', model_change: false, weight: 1, priority: 0 } },
    adapter: {} as ProviderAdapter,
    baseUrl: 'http://127.0.0.1:9/v1',
    timeouts: { connect_ms: 1_000, first_token_ms: 1_000, idle_ms: 1_000, total_ms: 1_000, heartbeat_ms: 1_000 },
    caller: new Cancellation(),
    deadlineAtMs: nowMs + 1_000,
    requestStartedAtMs: nowMs,
    transport: unreachable,
    onSettled,
  };
}

describe('runAttempt', () => {
  it('an upstream request the gateway fails to build is its own internal_error, settled, with nothing sent', async () => {
    const settled: AttemptRecord[] = [];
    const overflowing: Operation<never> = {
      name: 'chat completions',
      build: () => {
        throw new RangeError('Maximum call stack size exceeded');
      },
      read: () => Promise.reject(new Error('never read')),
    };
    const outcome = await runAttempt(input((record) => settled.push(record)), overflowing);
    expect(outcome.ok).toBe(false);
    expect(outcome.record).toMatchObject({ kind: 'internal_error', errorType: 'gateway_failure' });
    expect(outcome.record.message).toContain('RangeError: Maximum call stack size exceeded');
    expect(settled).toEqual([outcome.record]);
  });
});
