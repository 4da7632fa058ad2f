import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MockProvider } from '../src/mock/mock-provider.js';
import { seededRandom } from './seeded-random.js';

/** How long a provider takes to its first token: most answers fast, a share of them very slow. */
export interface FirstTokenTail {
  /** The typical first-token time; each fast answer takes 0.8–1.2 × this. */
  fastMs: number;
  /** The slow answers' first-token time; each takes 0.9–1.1 × this. */
  tailMs: number;
  /** The share of answers that are slow, 0..1. */
  tailShare: number;
  seed: number;
}

/** What reached one provider since the last `resetCounts`. */
export interface ProviderCounts {
  requests: number;
  /** Requests the gateway hung up on before their answer was complete (a hedge's loser, a timeout). */
  cancelled: number;
}

export interface HeavyTailUpstream {
  /** `http://127.0.0.1:PORT`: provider `name`'s OpenAI base URL is `<origin>/<name>/v1`. */
  origin: string;
  counts(name: string): ProviderCounts;
  /** Zeroes the counts and restarts every provider's delays from the seed. */
  resetCounts(): void;
  close(): Promise<void>;
}

/**
 * Streamed OpenAI providers in front of the mock, each its own path prefix with its own seeded
 * sequence of first-token times: a request to `/<name>/v1/chat/completions` is passed to the mock
 * with the model rewritten to `<name>?first_token_ms=<drawn>`, so the mock's own wire (headers
 * and role chunk at once, the first content after the delay) is what the gateway meets.
 */
export async function startHeavyTailUpstream(mock: MockProvider, tail: FirstTokenTail, names: readonly string[]): Promise<HeavyTailUpstream> {
  const providers = new Map<string, { draw: () => number; counts: ProviderCounts }>();
  const reset = (): void => {
    names.forEach((name, index) => {
      const random = seededRandom(tail.seed + index);
      const draw = (): number => (random() < tail.tailShare ? tail.tailMs * (0.9 + 0.2 * random()) : tail.fastMs * (0.8 + 0.4 * random()));
      providers.set(name, { draw, counts: { requests: 0, cancelled: 0 } });
    });
  };
  reset();

  const server: Server = createServer((request, response) => {
    const name = request.url?.split('/')[1] ?? '';
    const provider = providers.get(name);
    if (provider === undefined || request.url !== `/${name}/v1/chat/completions`) {
      response.writeHead(404).end();
      return;
    }
    provider.counts.requests += 1;
    const aborted = new AbortController();
    response.once('close', () => {
      if (response.writableFinished) return;
      provider.counts.cancelled += 1;
      aborted.abort();
    });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"the body is not JSON","type":"invalid_request_error"}}');
        return;
      }
      body.model = `${name}?first_token_ms=${Math.round(provider.draw())}`;
      void fetch(`${mock.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: aborted.signal,
      }).then(
        async (upstream) => {
          response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
          for await (const chunk of upstream.body ?? []) response.write(chunk);
          response.end();
        },
        () => response.destroy(),
      ).catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    counts: (name) => ({ ...providers.get(name)!.counts }),
    resetCounts: reset,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
