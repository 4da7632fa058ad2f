import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { startServeProcess } from './serve-process.js';

const ADMIN_TOKEN = 'store-capture-admin-token';
const CONCURRENCY = 16;
const CALL_TIMEOUT_MS = 10_000;
const PRICE = '{ input_per_mtok: 30, output_per_mtok: 1200, cache_read_per_mtok: 3, cache_write_per_mtok: 37.5 }';

/** The models the traffic asks for, by weight: most are served first time, some by a fallback, a few by nothing. */
const MODELS: readonly [string, number][] = [
  ['chat', 40],
  ['agents', 25],
  ['summaries', 15],
  ['failover', 10],
  ['mock-openai/gpt-mock', 6],
  ['no-such-route', 4],
];

/**
 * The gateway as the capture runs it: the in-process mock provider in three dialects, a route
 * whose primary always answers 503 (its standby serves), a file store, and keys.
 */
function captureConfig(storePath: string): string {
  return [
    'server: { host: 127.0.0.1, port: 0 }',
    `store: { kind: sqlite, path: ${JSON.stringify(storePath)} }`,
    'auth: { mode: keys }',
    `admin: { token: ${ADMIN_TOKEN} }`,
    'state: { kind: memory }',
    'connections:',
    '  mock-openai: { provider: mock, dialect: openai }',
    '  mock-anthropic: { provider: mock, dialect: anthropic }',
    '  mock-gemini: { provider: mock, dialect: gemini }',
    'routes:',
    `  chat: { targets: [ { connection: mock-openai, model: gpt-mock, price: ${PRICE} } ] }`,
    `  agents: { targets: [ { connection: mock-anthropic, model: claude-mock, price: ${PRICE} } ] }`,
    `  summaries: { targets: [ { connection: mock-gemini, model: gemini-mock, price: ${PRICE} } ] }`,
    '  failover:',
    '    retries: 0',
    '    targets:',
    `      - { connection: mock-openai, model: "primary-mock?status=503", price: ${PRICE} }`,
    `      - { connection: mock-anthropic, model: claude-standby, price: ${PRICE} }`,
    '',
  ].join('\n');
}

async function admin(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function pick<T>(weighted: readonly [T, number][], draw: number): T {
  let left = draw * weighted.reduce((total, [, weight]) => total + weight, 0);
  for (const [value, weight] of weighted) if ((left -= weight) < 0) return value;
  return weighted[weighted.length - 1]![0];
}

/** The `n`th request of the capture: which key, model, stream or not, and a prompt of varying length. */
async function send(url: string, keys: readonly string[], n: number): Promise<void> {
  // A fixed pattern rather than a random one, so two captures send the same mix.
  const model = pick(MODELS, ((n * 7919) % 1000) / 1000);
  const stream = n % 3 === 0;
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${keys[n % keys.length]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: `request ${n}: ${'lorem ipsum '.repeat(1 + (n % 40))}` }] }),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  await response.arrayBuffer();
}

/**
 * Runs a gateway (the built CLI) and sends it `requests` requests of a mixed traffic — four keys,
 * two of them in a team, a third of them streamed, fallbacks and unknown models among them —
 * then writes the records it stored (`record_json`, as the store thread got them) to `file`,
 * gzipped JSON lines.
 */
export async function captureRecords(file: string, requests: number): Promise<number> {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-store-capture-'));
  const storePath = join(directory, 'switchyard.db');
  const configFile = join(directory, 'config.yaml');
  writeFileSync(configFile, captureConfig(storePath));
  const gateway = await startServeProcess(configFile);
  try {
    const team = await admin(gateway.url, '/admin/teams', { name: 'platform' });
    const keys: string[] = [];
    for (const [name, teamId] of [['web', team.id], ['batch', team.id], ['mobile', null], ['partner', null]] as const) {
      keys.push((await admin(gateway.url, '/admin/keys', { name, team: teamId })).key as string);
    }
    let next = 0;
    const worker = async () => {
      while (next < requests) await send(gateway.url, keys, next++);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // A clean stop flushes the records still buffered.
    gateway.signal('SIGTERM');
    await gateway.exited;
    const store = new Database(storePath, { readonly: true });
    const lines = store.prepare('SELECT record_json FROM requests ORDER BY created_ms, id').pluck().all() as string[];
    store.close();
    writeFileSync(file, gzipSync(lines.join('\n')));
    return lines.length;
  } finally {
    await gateway.kill();
    rmSync(directory, { recursive: true, force: true });
  }
}
