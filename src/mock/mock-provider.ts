/**
 * The built-in fault-injecting mock provider (docs/mock.md): an HTTP server speaking the OpenAI,
 * Anthropic, Gemini and Bedrock wire formats that misbehaves on request. Directives ride on the
 * model string (`gpt-mock?status=503`, URL-encoded in Gemini and Bedrock paths) or an `x-mock`
 * header; see docs/mock.md.
 *
 * It is also the benchmark backend, so an undelayed answer costs one parse, a few string
 * concatenations and a single write, with no timers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FaultWindow } from './fault-window.js';
import { IssuedTokens, type TokenGrant } from './issued-tokens.js';
import { MockAttempts, type MockAttempt } from './mock-attempts.js';
import { sendJson } from './mock-http.js';
import { openaiWire } from './openai-wire.js';
import { PromptCache } from './prompt-cache.js';
import { findRoute } from './routes.js';
import { serveMockRequest, type MockState } from './serve-mock-request.js';
import { serveTokenRequest } from './token-endpoint.js';

export { mockAnswerText } from './answer.js';
export type { MockAttempt } from './mock-attempts.js';
export type { TokenGrant } from './issued-tokens.js';

export interface MockProvider {
  /** `http://HOST:PORT`, without a trailing slash. */
  url: string;
  port: number;
  attempts: readonly MockAttempt[];
  attemptsFor(name: string): MockAttempt[];
  /** What the token endpoint (`POST /token`) was asked, in order; never a token or an assertion. */
  tokenGrants: readonly TokenGrant[];
  /** Forgets attempts, token grants, the `times` / `flap_down_s` counters and the prompt cache (issued tokens stay valid). */
  reset(): void;
  /** Stops listening and destroys every open socket, silent and stalled ones included. */
  close(): Promise<void>;
}

export interface MockProviderOptions {
  port?: number;
  host?: string;
  /** One line per attempt on stderr. */
  log?: boolean;
  /**
   * Attempts kept for inspection (default 10 000). Older ones are dropped in batches, so at
   * least this many of the latest are always available; a benchmark run cannot exhaust memory.
   */
  maxAttempts?: number;
  /**
   * Keys the mock refuses as the provider refuses a revoked or expired one: every request
   * presenting one gets the dialect's own credential error (the `error=credential` answer),
   * whatever its directives. Other keys, and requests with none, are served as always.
   */
  rejectedKeys?: readonly string[];
  /** The clock of the access tokens `POST /token` issues (default `Date.now`): a test moves it on to let one expire. */
  clock?: () => number;
}

const defaultMaxAttempts = 10_000;
// Longer than common clients' idle timeouts (undici: 4 s), so the client, not the mock, retires
// idle connections and never reuses one the mock is closing.
const keepAliveTimeoutMs = 65_000;
/**
 * Handshakes waiting to be accepted (Linux caps it at net.core.somaxconn, 4096 by default). Node's
 * 511 overflows when thousands of streams open upstream connections at once (the bench's
 * `--streams 5000`), and each dropped handshake waits for TCP's retry, 1 s and more.
 */
const ACCEPT_BACKLOG = 4_096;

export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const host = options.host ?? '127.0.0.1';
  const attempts = new MockAttempts({ maxAttempts: options.maxAttempts ?? defaultMaxAttempts, log: options.log ?? false });
  const state: MockState = {
    attempts,
    faultWindow: new FaultWindow(),
    rejectedKeys: new Set(options.rejectedKeys ?? []),
    promptCache: new PromptCache(),
    tokens: new IssuedTokens(),
    clock: options.clock ?? Date.now,
  };
  const sockets = new Set<Socket>();
  const reset = (): void => {
    attempts.clear();
    state.tokens.clearGrants();
    state.faultWindow.clear();
    state.promptCache.clear();
  };
  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const route = request.method === 'POST' ? findRoute(path, queryStart === -1 ? '' : url.slice(queryStart + 1)) : undefined;
    if (!route && path === '/token' && request.method === 'POST') {
      readBody(request, (text) => serveTokenRequest(request, response, text, state.tokens, state.clock()));
      return;
    }
    if (!route) {
      request.resume();
      if (!control(path, request, response, state, reset)) {
        const notFound = openaiWire.invalidRequest(`mock: no route for ${request.method} ${path}`);
        sendJson(response, 404, notFound.body, {});
      }
      return;
    }
    readBody(request, (text) => serveMockRequest(route, path, request, response, text, state));
  });
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.headersTimeout = keepAliveTimeoutMs + 1_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host, backlog: ACCEPT_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    attempts: attempts.list,
    attemptsFor: (name) => attempts.list.filter((attempt) => attempt.name === name),
    tokenGrants: state.tokens.grants,
    reset,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

function readBody(request: IncomingMessage, then: (text: string) => void): void {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => then(parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts).toString('utf8')));
}

/** The mock's own endpoints: `GET /_mock/attempts`, `GET /_mock/token_grants` and `POST /_mock/reset`; false for any other path. */
function control(path: string, request: IncomingMessage, response: ServerResponse, state: MockState, reset: () => void): boolean {
  if (path === '/_mock/attempts' && request.method === 'GET') {
    sendJson(response, 200, JSON.stringify({ data: state.attempts.list }), {});
    return true;
  }
  if (path === '/_mock/token_grants' && request.method === 'GET') {
    sendJson(response, 200, JSON.stringify({ data: state.tokens.grants }), {});
    return true;
  }
  if (path === '/_mock/reset' && request.method === 'POST') {
    reset();
    sendJson(response, 200, '{"ok":true}', {});
    return true;
  }
  return false;
}
