/**
 * What SIGTERM costs under load: starts `switchyard serve` with a file store and the in-process
 * mock, opens an idle keep-alive socket and N slow streams, sends SIGTERM once every stream has
 * started, and reports how long the process took to exit and whether every request that reached
 * it has its record (and every spend row a record to go with it).
 *
 *   npm run build && node dist/bench/shutdown-under-load.js [--requests 30] [--stream-ms 2000] [--drain-ms N]
 *
 * Without --drain-ms the config leaves `server.drain_ms` at its default.
 */
import Database from 'better-sqlite3';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServeProcess } from './serve-process.js';

const CHUNKS = 20;

interface StreamResult {
  requestId: string;
  /** `complete` ended with `[DONE]`; `cut` lost its connection; `ended` closed without `[DONE]`. */
  outcome: 'complete' | 'cut' | 'ended';
}

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '30' }, 'stream-ms': { type: 'string', default: '2000' }, 'drain-ms': { type: 'string' } },
});
const requests = wholeNumber('--requests', values.requests, 1);
const streamMs = wholeNumber('--stream-ms', values['stream-ms'], CHUNKS);
if (values['drain-ms'] !== undefined) wholeNumber('--drain-ms', values['drain-ms'], 0);
const chunkMs = Math.max(1, Math.round(streamMs / CHUNKS));

const directory = mkdtempSync(join(tmpdir(), 'switchyard-shutdown-'));
const storeFile = join(directory, 'switchyard.db');
const configFile = join(directory, 'config.yaml');
writeFileSync(
  configFile,
  `server: { host: 127.0.0.1${values['drain-ms'] === undefined ? '' : `, drain_ms: ${values['drain-ms']}`} }
auth: { mode: none }
store: { kind: sqlite, path: ${JSON.stringify(storeFile)} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  slow:
    targets: [{ connection: mock-openai, model: "gpt-mock?chunks=${CHUNKS}&chunk_ms=${chunkMs}" }]
`,
);

const serve = await startServeProcess(configFile);
try {
  const url = new URL(serve.url);
  const idle = await openIdleSocket(url);
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const started: Promise<void>[] = [];
  const streams = Array.from({ length: requests }, () => {
    let onStarted!: () => void;
    started.push(new Promise<void>((resolve) => (onStarted = resolve)));
    return stream(url, agent, onStarted);
  });
  await Promise.all(started);

  const signalledAtMs = Date.now();
  serve.signal('SIGTERM');
  const results = await Promise.all(streams);
  const exit = await serve.exited;
  agent.destroy();

  const db = new Database(storeFile, { readonly: true });
  const recorded = new Set(db.prepare('SELECT id FROM requests').pluck().all() as string[]);
  const spendRows = db.prepare('SELECT request_id FROM spend').pluck().all() as string[];
  db.close();
  const lost = results.filter((result) => !recorded.has(result.requestId)).length;
  const outcomes = Object.fromEntries(['complete', 'cut', 'ended'].map((outcome) => [outcome, results.filter((result) => result.outcome === outcome).length]));
  const summary = {
    requests,
    stream_ms: streamMs,
    drain_ms: values['drain-ms'] === undefined ? 'default' : Number(values['drain-ms']),
    exit_code: exit.code,
    exit_after_sigterm_ms: exit.atMs - signalledAtMs,
    idle_socket_closed_after_ms: (await idle.closed) - signalledAtMs,
    streams: outcomes,
    records_lost: lost,
    spend_rows: spendRows.length,
    spend_rows_without_record: spendRows.filter((id) => !recorded.has(id)).length,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
} finally {
  await serve.kill();
  rmSync(directory, { recursive: true, force: true });
}

function wholeNumber(option: string, text: string, min: number): number {
  const value = Number(text);
  if (Number.isInteger(value) && value >= min) return value;
  process.stderr.write(`${option} must be a whole number of at least ${min} (got ${text})\n`);
  process.exit(2);
}

/** A keep-alive socket that was answered once and then sits idle; resolves when the gateway closes it. */
function openIdleSocket(url: URL): Promise<{ closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const closed = new Promise<number>((resolveClosed) => socket.once('close', () => resolveClosed(Date.now())));
    socket.once('error', () => undefined);
    socket.once('connect', () => socket.write(`GET /healthz HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n\r\n`));
    socket.once('data', () => resolve({ closed }));
    setTimeout(() => reject(new Error('the idle socket got no answer')), 5_000).unref();
  });
}

function stream(url: URL, agent: Agent, onStarted: () => void): Promise<StreamResult> {
  return new Promise((resolve) => {
    const body = JSON.stringify({ model: 'slow', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (response) => {
        const requestId = String(response.headers['x-request-id']);
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text === '') onStarted();
          text += chunk;
        });
        response.once('end', () => resolve({ requestId, outcome: text.includes('data: [DONE]') ? 'complete' : 'ended' }));
        response.once('error', () => resolve({ requestId, outcome: 'cut' }));
        response.once('aborted', () => resolve({ requestId, outcome: 'cut' }));
      },
    );
    outgoing.once('error', () => resolve({ requestId: '(none)', outcome: 'cut' }));
    outgoing.end(body);
  });
}
