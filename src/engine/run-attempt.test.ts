import { CredentialUnavailable } from '../credentials/credential-unavailable.js';
import { GoogleAccessTokens, type AccessTokens } from '../credentials/google-access-tokens.js';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionConfig } from '../config/schema.js';
import { PROBE_REQUEST } from '../health/probe-request.js';
import { adapterFor } from '../providers/registry.js';
import type { ProviderAdapter } from '../providers/spec.js';
import { Transport } from '../transport/send-upstream.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import { Cancellation } from '../core/cancellation.js';
import { chatOperation } from './chat-operation.js';
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
    timeouts: { connect_ms: 1_000, first_token_ms: 1_000, idle_ms: 1_000 },
    caller: new Cancellation(),
    deadlineAtMs: nowMs + 1_000,
    requestStartedAtMs: nowMs,
    transport: unreachable,
    accessTokens: new GoogleAccessTokens(),
    observer: { observeHeaders: () => undefined, settle: onSettled },
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

  it("a connection's token that cannot be had is its credential fault, with nothing sent", async () => {
    const sent: unknown[] = [];
    const refusing: AccessTokens = {
      bearerFor: (name) => Promise.reject(new CredentialUnavailable(name, 'no access token: the token endpoint refused the key (HTTP 400 invalid_grant)')),
      close: () => undefined,
    };
    const vertex: ConnectionConfig = { provider: 'vertex', project: 'p', location: 'us-east5', alternate_hosts: [], max_in_flight: 1, optional: false, relay: 'auto' };
    const base = input(() => undefined);
    const outcome = await runAttempt(
      { ...base, target: { ...base.target, connectionName: 'vertex-east', connection: vertex }, accessTokens: refusing, transport: { send: (request: unknown) => (sent.push(request), Promise.reject(new Error('sent'))) } as unknown as Transport },
      { name: 'chat completions', build: () => ({ url: `${base.baseUrl}/x`, method: 'POST', headers: {}, body: '{}' }), read: () => Promise.reject(new Error('never read')) },
    );
    expect(outcome.record).toMatchObject({
      kind: 'credential',
      errorType: 'credential_unavailable',
      message: 'connection vertex-east: no access token: the token endpoint refused the key (HTTP 400 invalid_grant)',
    });
    expect(sent).toEqual([]);
  });
});

const ANSWER = { id: 'chatcmpl-1', object: 'chat.completion', created: 0, model: 'pooled', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] };

let upstream: Server;
let baseUrl: string;
const held: ServerResponse[] = [];

beforeAll(async () => {
  upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => held.push(response));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

// Only the caller's deadline may run while a request waits for a socket of its pool; the
// first-token timeout is the provider's, and starts when the provider has the request.
it('time spent waiting for a pooled socket is not first-token time', async () => {
  const connection: ConnectionConfig = { provider: 'openai-compatible', base_url: baseUrl, api_key: 'k', alternate_hosts: [], max_in_flight: 1, optional: false, relay: 'auto' };
  const transport = new Transport({ poolSizes: () => new Map([[new URL(baseUrl).origin, 1]]) });
  const firstTokenMs = 300;
  const attempt = (n: number, firstTokenTimeoutMs: number) =>
    runAttempt(
      {
        n,
        target: { connectionName: 'pooled', connection, routedModel: 'pooled', modelChange: false, config: { connection: 'pooled', model: 'pooled', model_change: false, weight: 1, priority: 0 } },
        adapter: adapterFor(connection, 'pooled'),
        baseUrl,
        timeouts: { connect_ms: 1_000, first_token_ms: firstTokenTimeoutMs, idle_ms: 1_000 },
        caller: new Cancellation(),
        deadlineAtMs: Date.now() + 5_000,
        requestStartedAtMs: Date.now(),
        transport,
        accessTokens: new GoogleAccessTokens(),
      },
      chatOperation(PROBE_REQUEST, 'first_token'),
    );
  try {
    const first = attempt(1, 5_000);
    const second = attempt(2, firstTokenMs);
    // The first holds the pool's only socket for twice the second's first-token timeout.
    await new Promise((resolve) => setTimeout(resolve, firstTokenMs * 2));
    expect(held).toHaveLength(1);
    held.shift()!.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ANSWER));
    for (let waitedMs = 0; held.length === 0 && waitedMs < 2_000; waitedMs += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    held.shift()?.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ANSWER));
    expect((await first).record.kind).toBe('ok');
    expect((await second).record.kind).toBe('ok');
  } finally {
    await transport.close();
  }
});
