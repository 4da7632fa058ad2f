/**
 * What a primary that goes silent costs the caller behind a route's timeouts: a gateway in this
 * process, a two-target route whose primary is the mock behind a pass-through that can be told to
 * swallow requests, and the mock itself as the standby. The primary is warmed with streamed
 * answers, silenced, and concurrent streamed requests are timed until their whole answer (from
 * the standby) is in. The route's breaker is set out of reach, so every request meets the silent
 * primary rather than finding it ejected.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { ConfigSource } from '../src/config/config-source.js';
import { startMockProvider, type MockProvider } from '../src/mock/mock-provider.js';

const ADMIN_TOKEN = 'bench-admin-token';

export interface SilentPrimaryOptions {
  /** Streamed answers from the primary before it goes silent. */
  warm: number;
  /** Concurrent streamed requests timed behind the silent primary (and alone to the standby). */
  requests: number;
}

export interface SilentPrimaryResult {
  mode: string;
  timeoutInForceMs: number[];
  failoverMs: number[];
  standbyAloneMs: number[];
}

/** A pass-through to the mock that, once `silent`, reads each request and never answers. */
interface SilencingProxy {
  url: string;
  silent: boolean;
  close(): Promise<void>;
}

async function startSilencingProxy(mock: MockProvider): Promise<SilencingProxy> {
  const proxy: SilencingProxy = { url: '', silent: false, close: () => Promise.resolve() };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (proxy.silent) return;
      void fetch(`${mock.url}${request.url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) }).then(async (upstream) => {
        response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
        for await (const chunk of upstream.body ?? []) response.write(chunk);
        response.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** `timeouts`: the route's `timeouts` block in YAML flow style, e.g. `{ first_token_ms: auto }`. */
export async function measureSilentPrimary(mode: string, timeouts: string, { warm: warmCount, requests: requestCount }: SilentPrimaryOptions): Promise<SilentPrimaryResult> {
  const mock = await startMockProvider();
  const proxy = await startSilencingProxy(mock);
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-silent-primary-'));
  const configFile = join(directory, 'config.yaml');
  writeFileSync(
    configFile,
    `store: { kind: sqlite, path: ":memory:" }
auth: { mode: none }
admin: { token: ${ADMIN_TOKEN} }
connections:
  primary: { provider: openai-compatible, base_url: "${proxy.url}/v1", api_key: bench-key }
  standby: { provider: mock, dialect: openai }
routes:
  chat:
    timeouts: ${timeouts}
    health: { consecutive_failures: 1000, min_requests: 100000 }
    targets:
      - { connection: primary, model: gpt-mock }
      - { connection: standby, model: gpt-mock }
  standby-alone:
    targets: [{ connection: standby, model: gpt-mock }]
`,
  );
  const app = await createApp({ configSource: ConfigSource.load(configFile, { env: {} }), env: {}, mockUrl: () => mock.url });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    for (let sent = 0; sent < warmCount; sent++) {
      const warm = await streamedRequest(url, 'chat');
      if (warm.servedBy !== 'primary/gpt-mock') throw new Error(`warm-up request ${sent + 1} was served by ${warm.servedBy}`);
    }
    const standbyAloneMs: number[] = [];
    for (let sent = 0; sent < requestCount; sent++) standbyAloneMs.push((await streamedRequest(url, 'standby-alone')).elapsedMs);

    proxy.silent = true;
    const silent = await Promise.all(Array.from({ length: requestCount }, () => streamedRequest(url, 'chat')));
    const timeoutInForceMs: number[] = [];
    for (const result of silent) {
      // The record, not the header: past `heartbeat_ms` the headers went out before anyone answered.
      const record = (await (await fetch(`${url}/admin/requests/${result.requestId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
        served: { connection: string } | null;
        attempts: { first_token_timeout_ms: number }[];
      };
      if (record.served?.connection !== 'standby') throw new Error(`a request behind the silent primary was served by ${record.served?.connection}`);
      timeoutInForceMs.push(record.attempts[0]!.first_token_timeout_ms);
    }
    return { mode, timeoutInForceMs, failoverMs: silent.map((result) => result.elapsedMs), standbyAloneMs };
  } finally {
    await app.close();
    await proxy.close();
    await mock.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function streamedRequest(url: string, model: string): Promise<{ elapsedMs: number; servedBy: string | null; requestId: string }> {
  const startedAt = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = await response.text();
  if (response.status !== 200 || !body.includes('[DONE]')) throw new Error(`${model}: ${response.status} ${body.slice(0, 200)}`);
  return { elapsedMs: performance.now() - startedAt, servedBy: response.headers.get('x-switchyard-served-by'), requestId: response.headers.get('x-request-id')! };
}

/** The median (lower middle for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}
