/**
 * Helpers for the scenarios of first-token timeouts learned from measurement: an OpenAI-shaped
 * upstream that answers at once until a model is told to go silent, and a warm-up that gives a
 * deployment its samples. Not a test file itself (vitest collects only `*.test.ts`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { postChat } from '../support/start-gateway.js';
import { hello } from './scenario-helpers.js';

export interface ScriptedUpstream {
  /** The base URL for a connection (`…/v1`). */
  baseUrl: string;
  /** Every request it received, in order. */
  seen: { model: string; stream: boolean }[];
  /** Models that take the request and never answer from now on. */
  silent: Set<string>;
  /** Models that answer only after this many milliseconds from now on. */
  delayMs: Map<string, number>;
  /** The model of each request whose connection closed before its answer was written in full. */
  closedEarly: string[];
  close(): Promise<void>;
}

/** A `node:http` server on 127.0.0.1: one short answer per request, streamed or whole, at once unless told otherwise. */
export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const seen: ScriptedUpstream['seen'] = [];
  const silent = new Set<string>();
  const delayMs = new Map<string, number>();
  const closedEarly: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(text) as { model: string; stream?: boolean };
      seen.push({ model: body.model, stream: body.stream === true });
      response.on('close', () => {
        if (!response.writableFinished) closedEarly.push(body.model);
      });
      if (silent.has(body.model)) return;
      const answer = () => (request.socket.destroyed ? undefined : respond(response, body));
      const delay = delayMs.get(body.model);
      if (delay === undefined) answer();
      else setTimeout(answer, delay);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    seen,
    silent,
    delayMs,
    closedEarly,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One short OpenAI answer, whole or streamed as the request asked. */
function respond(response: ServerResponse, body: { model: string; stream?: boolean }): void {
  if (!body.stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'chatcmpl-scripted',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      }),
    );
    return;
  }
  const chunk = (delta: unknown, finish: string | null) => ({ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] });
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: 'Hello.' }, null))}\n\n`);
  response.write(`data: ${JSON.stringify(chunk({}, 'stop'))}\n\n`);
  response.end('data: [DONE]\n\n');
}

/** Sends `count` streamed requests to `model`, one after another, each answered by `servedBy`. */
export async function warmUp(gatewayUrl: string, model: string, count: number, servedBy: string): Promise<void> {
  for (let sent = 0; sent < count; sent++) {
    const response = await postChat(gatewayUrl, { model, stream: true, messages: hello });
    await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-switchyard-served-by')).toBe(servedBy);
  }
}
