/**
 * Child process: the yardstick. The least a Node proxy can do: read the request body, forward it
 * over a keep-alive undici Pool (argv[3] connections, default 512) to the upstream named in
 * argv[2], and pipe the answer back (status, content-type, content-length when present, body)
 * without parsing either side. What this costs is the price of any Node HTTP hop; what the
 * gateway costs beyond it is its own.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { announce, failStartup } from './announce.js';

// The same keep-alive settings the gateway's Transport uses, so neither side wins on pooling;
// the streams mode raises the pool to its thousands of concurrent requests.
const defaultUpstreamConnections = 512;
const keepAliveTimeoutMs = 30_000;
// Longer than the load generator's idle time, so the client, never this server, closes idle sockets.
const inboundKeepAliveTimeoutMs = 65_000;
// As the bench's mock: Node's 511 overflows when the streams mode opens thousands of connections at
// once, and a dropped handshake waits a second or more for TCP's retry (Linux caps this at somaxconn).
// Its own constant, not the mock's: importing the mock would load it into the floor's process.
const acceptBacklog = 4_096;
// Enough to say what went wrong; a dead upstream under load would otherwise flood the terminal.
const loggedFailureLimit = 3;
let failureCount = 0;

try {
  const upstream = process.argv[2];
  if (upstream === undefined) throw new Error('usage: bare-proxy.js UPSTREAM_ORIGIN [CONNECTIONS]');
  const connections = process.argv[3] === undefined ? defaultUpstreamConnections : Number(process.argv[3]);
  if (!Number.isInteger(connections) || connections < 1) throw new Error(`CONNECTIONS must be a whole number above 0, got "${process.argv[3]}"`);
  const pool = new Pool(upstream, { connections, keepAliveTimeout: keepAliveTimeoutMs });

  const server = createServer({ keepAliveTimeout: inboundKeepAliveTimeoutMs }, (request, response) => {
    forward(pool, request, response).catch((error: unknown) => fail(response, error));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', backlog: acceptBacklog }, () => resolve());
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
  const body = await readBody(request);
  const headers: Record<string, string> = { 'content-length': String(body.length) };
  const contentType = request.headers['content-type'];
  if (contentType !== undefined) headers['content-type'] = contentType;

  const answer = await pool.request({ path: request.url ?? '/', method: request.method ?? 'GET', headers, body });
  const answerHeaders: Record<string, string> = {};
  copyHeader(answer.headers, answerHeaders, 'content-type');
  copyHeader(answer.headers, answerHeaders, 'content-length');
  response.writeHead(answer.statusCode, answerHeaders);
  // Plain pipe() rather than stream.pipeline(): pipeline allocates an AbortController per call
  // and aborts it (building a DOMException) when done, a cost of the helper, not of the hop.
  answer.body.on('error', (error) => fail(response, error));
  response.once('close', () => {
    if (!response.writableFinished) answer.body.destroy();
  });
  answer.body.pipe(response);
}

/** The whole request body; data/end events rather than an async iterator, the cheapest way Node offers. */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.once('end', () => resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts)));
    request.once('error', reject);
  });
}

function copyHeader(from: Record<string, string | string[] | undefined>, to: Record<string, string>, name: string): void {
  const value = from[name];
  if (typeof value === 'string') to[name] = value;
}

function reportFailure(error: unknown): void {
  failureCount += 1;
  if (failureCount > loggedFailureLimit) return;
  const suffix = failureCount === loggedFailureLimit ? ' (further failures are not logged)' : '';
  process.stderr.write(`bare proxy: ${error instanceof Error ? error.message : String(error)}${suffix}\n`);
}

function fail(response: ServerResponse, error: unknown): void {
  // The load generator hangs up on in-flight requests when a run ends; that is no upstream failure.
  if (response.destroyed && !response.writableFinished) return;
  reportFailure(error);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(502, { 'content-type': 'text/plain' });
  response.end('bare proxy: upstream failed');
}
