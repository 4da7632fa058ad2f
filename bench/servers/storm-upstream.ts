/**
 * Child process: the retry-storm replay's two OpenAI providers on one loopback port, told apart by
 * path prefix (`/primary/v1`, `/standby/v1`). Each answers a chat completion after `argv[2]` ms;
 * once `POST /_bench/fault?ms=N` is called, the primary answers every request at once with 503,
 * `retry-after: 2` and OpenAI's overloaded body for the next N ms. Arrivals are counted per
 * provider per second since `POST /_bench/start`; `GET /_bench/series` returns the counts.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openaiErrorBodies } from '../../src/mock/error-bodies.js';
import { announce, failStartup } from './announce.js';

const PROVIDERS = ['primary', 'standby'];
const RETRY_AFTER_S = 2;
// Longer than the gateway's pooled sockets stay idle, so the gateway, never this server, retires them.
const keepAliveTimeoutMs = 65_000;

try {
  const answerMs = Number(process.argv[2]);
  if (!Number.isInteger(answerMs) || answerMs < 0) throw new Error('usage: storm-upstream.js ANSWER_MS');
  let startedAtMs = Date.now();
  let faultEndsAtMs = 0;
  const arrivals = new Map<string, number[]>(PROVIDERS.map((name) => [name, []]));
  const count = (series: number[]): void => {
    const second = Math.floor((Date.now() - startedAtMs) / 1000);
    while (series.length <= second) series.push(0);
    series[second]! += 1;
  };
  const answer = JSON.stringify({
    id: 'chatcmpl-storm',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'storm-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  const overloaded = JSON.stringify(openaiErrorBodies.modelOverloaded);

  const server = createServer({ keepAliveTimeout: keepAliveTimeoutMs }, (request, response) => {
    const url = new URL(request.url ?? '/', 'http://storm');
    request.resume();
    request.once('end', () => {
      if (request.method === 'POST' && url.pathname === '/_bench/start') {
        startedAtMs = Date.now();
        for (const series of arrivals.values()) series.length = 0;
        return void response.writeHead(204).end();
      }
      if (request.method === 'POST' && url.pathname === '/_bench/fault') {
        faultEndsAtMs = Date.now() + Number(url.searchParams.get('ms'));
        return void response.writeHead(204).end();
      }
      if (request.method === 'GET' && url.pathname === '/_bench/series') {
        return void sendJson(response, 200, { arrivals: Object.fromEntries(arrivals) });
      }
      const provider = PROVIDERS.find((name) => url.pathname === `/${name}/v1/chat/completions`);
      if (provider === undefined) return void response.writeHead(404).end();
      count(arrivals.get(provider)!);
      if (provider === 'primary' && Date.now() < faultEndsAtMs) {
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_S) });
        return void response.end(overloaded);
      }
      const timer = setTimeout(() => sendJson(response, 200, answer), answerMs);
      response.once('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
} catch (error) {
  failStartup(error);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(typeof body === 'string' ? body : JSON.stringify(body));
}
