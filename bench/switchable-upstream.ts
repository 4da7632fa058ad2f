import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROBE_REQUEST } from '../src/health/probe-request.js';
import type { MockProvider } from '../src/mock/mock-provider.js';

/** One request that reached the provider. */
export interface UpstreamRequest {
  /** `performance.now()` when it arrived. */
  atMs: number;
  /** The gateway's own probe, not a caller's request. */
  probe: boolean;
  status: number;
}

export interface SwitchableUpstream {
  /** The provider's OpenAI base URL (`…/v1`). */
  baseUrl: string;
  /** While true, every request is answered 503 (the mock's own OpenAI 503 body). */
  down: boolean;
  /** Every request so far, in arrival order. */
  requests: UpstreamRequest[];
  close(): Promise<void>;
}

/**
 * A provider that can be taken down and brought back: a pass-through to the mock which, while
 * `down`, asks the mock for its 503 answer (the `x-mock: status=503` directive) instead of the
 * real one. It tells the gateway's probes from callers' requests by their one-token cap: the
 * bench's callers never set a cap, and a probe is `PROBE_REQUEST` (src/health/probe-request.ts).
 */
export async function startSwitchableUpstream(mock: MockProvider): Promise<SwitchableUpstream> {
  const upstream: SwitchableUpstream = { baseUrl: '', down: false, requests: [], close: () => Promise.resolve() };
  const server: Server = createServer((request, response) => {
    const atMs = performance.now();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const body = Buffer.concat(chunks);
      const { max_completion_tokens: cap } = JSON.parse(body.toString('utf8')) as { max_completion_tokens?: number };
      const logged: UpstreamRequest = { atMs, probe: cap === PROBE_REQUEST.maxOutputTokens, status: 0 };
      upstream.requests.push(logged);
      void fetch(`${mock.url}${request.url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(upstream.down ? { 'x-mock': 'status=503' } : {}) },
        body,
      })
        .then(async (answer) => {
          logged.status = answer.status;
          response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          response.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}
