/**
 * Child process: the yardstick. The least a Node proxy can do: read the request body, forward it
 * over a keep-alive undici Pool to the upstream named in argv[2], and pipe the answer back
 * (status, content-type, content-length when present, body) without parsing either side. What
 * this costs is the price of any Node HTTP hop; what the gateway costs beyond it is its own.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';
import { announce, failStartup } from './announce.js';

// The same keep-alive settings the gateway's Transport uses, so neither side wins on pooling.
const upstreamConnections = 512;
const keepAliveTimeoutMs = 30_000;
// Longer than the load generator's idle time, so the client, never this server, closes idle sockets.
const inboundKeepAliveTimeoutMs = 65_000;

try {
  const upstream = process.argv[2];
  if (upstream === undefined) throw new Error('usage: bare-proxy.js UPSTREAM_ORIGIN');
  const pool = new Pool(upstream, { connections: upstreamConnections, keepAliveTimeout: keepAliveTimeoutMs });

  const server = createServer({ keepAliveTimeout: inboundKeepAliveTimeoutMs }, (request, response) => {
    forward(pool, request, response).catch((error: unknown) => fail(response, error));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  announce(`http://127.0.0.1:${port}`, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await pool.close();
  });
} catch (error) {
  failStartup(error);
}

async function forward(pool: Pool, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const parts: Buffer[] = [];
  for await (const part of request as AsyncIterable<Buffer>) parts.push(part);
  const body = Buffer.concat(parts);
  const headers: Record<string, string> = { 'content-length': String(body.length) };
  const contentType = request.headers['content-type'];
  if (contentType !== undefined) headers['content-type'] = contentType;

  const answer = await pool.request({ path: request.url ?? '/', method: request.method ?? 'GET', headers, body });
  const answerHeaders: Record<string, string> = {};
  copyHeader(answer.headers, answerHeaders, 'content-type');
  copyHeader(answer.headers, answerHeaders, 'content-length');
  response.writeHead(answer.statusCode, answerHeaders);
  await pipeline(answer.body, response);
}

function copyHeader(from: Record<string, string | string[] | undefined>, to: Record<string, string>, name: string): void {
  const value = from[name];
  if (typeof value === 'string') to[name] = value;
}

function fail(response: ServerResponse, error: unknown): void {
  process.stderr.write(`bare proxy: ${error instanceof Error ? error.message : String(error)}\n`);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(502, { 'content-type': 'text/plain' });
  response.end('bare proxy: upstream failed');
}
