/**
 * `npm run bench:tail`: time to first token when a provider's first-token time has a heavy tail
 * (most answers fast, a few very slow), behind a two-target route whose targets both draw from
 * that tail, independently and from a seed. One gateway per mode — neither option,
 * `first_token_ms: auto`, `hedge: {after_ms: auto}` — plus a reference run with no tail at all
 * (the healthy p95). Prints p50/p95/p99 time to first token as the caller saw it and the extra
 * upstream requests per caller request, then what a silent primary behind `auto` costs
 * (bench/silent-primary.ts). Everything runs in this process, on 127.0.0.1.
 *
 *   npm run bench:tail -- [--quick] [--requests 1000] [--concurrency 8] [--json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.js';
import { ConfigSource } from '../src/config/config-source.js';
import { startMockProvider } from '../src/mock/mock-provider.js';
import { boundedNumber } from './bounded-number.js';
import { startHeavyTailUpstream, type FirstTokenTail } from './heavy-tail-upstream.js';
import { LatencyRecorder } from './latency-recorder.js';
import { measureSilentPrimary, median } from './silent-primary.js';

const PROVIDERS = ['primary', 'standby'] as const;
/** The default `timeouts.first_token_min_ms`: what a silent primary behind `auto` should cost once warmed. */
const FIRST_TOKEN_MIN_MS = 1_000;
/** What the gateway itself may add to a failover beyond the learned timeout and the standby's own time. */
const FAILOVER_OVERHEAD_ALLOWED_MS = 50;

interface TailOptions {
  requests: number;
  concurrency: number;
  warm: number;
  tail: FirstTokenTail;
  silentRequests: number;
  json: string | undefined;
}

interface Mode {
  name: string;
  /** The route's policy lines, YAML under the route, indented by four spaces. */
  policy: string;
  /** Overrides the tail: the healthy reference has none. */
  tailShare?: number;
}

const MODES: Mode[] = [
  { name: 'healthy (no tail)', policy: '', tailShare: 0 },
  { name: 'neither (first_token_ms: 30000)', policy: '    timeouts: { first_token_ms: 30000 }\n' },
  { name: 'first_token_ms: auto (the default)', policy: '' },
  { name: 'hedge: { after_ms: auto }', policy: '    hedge: { after_ms: auto }\n' },
];

interface ModeResult {
  mode: string;
  callerRequests: number;
  ttftP50Ms: number;
  ttftP95Ms: number;
  ttftP99Ms: number;
  upstreamRequests: Record<string, number>;
  cancelledUpstream: number;
  extraUpstreamPerCallerRequest: number;
}

const options = parseOptions(process.argv.slice(2));
const results: ModeResult[] = [];
for (const mode of MODES) results.push(await runMode(mode));
const silent = await measureSilentPrimary('first_token_ms: auto', '{ first_token_ms: auto }', { warm: 25, requests: options.silentRequests });
report(results, silent);

async function runMode(mode: Mode): Promise<ModeResult> {
  const mock = await startMockProvider({ maxAttempts: 64 });
  const upstream = await startHeavyTailUpstream(mock, { ...options.tail, tailShare: mode.tailShare ?? options.tail.tailShare }, PROVIDERS);
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-tail-'));
  const configFile = join(directory, 'config.yaml');
  writeFileSync(configFile, configYaml(mode.policy, upstream.origin));
  const app = await createApp({ configSource: ConfigSource.load(configFile, { env: {} }), env: {}, mockUrl: () => mock.url });
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    // Warm-up: the learned timeout and the hedge's delay need the deployment's samples first.
    await closedLoop(url, options.warm, options.concurrency, new LatencyRecorder());
    upstream.resetCounts();
    const recorder = new LatencyRecorder();
    await closedLoop(url, options.requests, options.concurrency, recorder);
    const [p50, p95, p99] = recorder.summarise([0.5, 0.95, 0.99]).percentilesMs;
    const upstreamRequests = Object.fromEntries(PROVIDERS.map((name) => [name, upstream.counts(name).requests]));
    const totalUpstream = PROVIDERS.reduce((sum, name) => sum + upstream.counts(name).requests, 0);
    return {
      mode: mode.name,
      callerRequests: options.requests,
      ttftP50Ms: p50!,
      ttftP95Ms: p95!,
      ttftP99Ms: p99!,
      upstreamRequests,
      cancelledUpstream: PROVIDERS.reduce((sum, name) => sum + upstream.counts(name).cancelled, 0),
      extraUpstreamPerCallerRequest: (totalUpstream - options.requests) / options.requests,
    };
  } finally {
    await app.close();
    await upstream.close();
    await mock.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** `origin`: the heavy-tail upstream's, before `/<provider>/v1`. */
function configYaml(policy: string, origin: string): string {
  return `store: { kind: sqlite, path: ":memory:" }
auth: { mode: none }
connections:
${PROVIDERS.map((name) => `  ${name}: { provider: openai-compatible, base_url: "${origin}/${name}/v1", api_key: bench-key }`).join('\n')}
routes:
  chat:
${policy}    targets:
${PROVIDERS.map((name) => `      - { connection: ${name}, model: gpt-mock }`).join('\n')}
`;
}

/** `total` streamed requests over `concurrency` callers, each sending its next as soon as its last is answered. */
async function closedLoop(url: string, total: number, concurrency: number, recorder: LatencyRecorder): Promise<void> {
  let sent = 0;
  const caller = async (): Promise<void> => {
    while (sent < total) {
      sent += 1;
      recorder.record(await timeToFirstToken(url));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, caller));
}

/** Sends one streamed request; the time until its first content delta, after reading the whole answer. */
async function timeToFirstToken(url: string): Promise<number> {
  const startedAt = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'chat', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    signal: AbortSignal.timeout(120_000),
  });
  if (response.status !== 200 || response.body === null) throw new Error(`a caller got ${response.status}: ${(await response.text()).slice(0, 200)}`);
  const decoder = new TextDecoder();
  let text = '';
  let firstTokenMs: number | undefined;
  for await (const chunk of response.body) {
    text += decoder.decode(chunk, { stream: true });
    if (firstTokenMs === undefined && /"content":"[^"]/.test(text)) firstTokenMs = performance.now() - startedAt;
  }
  if (firstTokenMs === undefined || !text.includes('data: [DONE]')) throw new Error(`a caller's stream ended without content or [DONE]: ${text.slice(0, 200)}`);
  return firstTokenMs;
}

function report(modes: readonly ModeResult[], silentResult: Awaited<ReturnType<typeof measureSilentPrimary>>): void {
  const { tail } = options;
  console.log(
    `first-token times: ${(1 - tail.tailShare) * 100}% at ~${tail.fastMs} ms, ${tail.tailShare * 100}% at ~${tail.tailMs} ms (seed ${tail.seed}), on both targets; ` +
      `${options.requests} streamed requests per mode from ${options.concurrency} callers after ${options.warm} discarded\n`,
  );
  console.log('| mode | TTFT p50 (ms) | TTFT p95 (ms) | TTFT p99 (ms) | upstream requests (primary / standby) | cancelled upstream | extra upstream per caller request |');
  console.log('|---|---|---|---|---|---|---|');
  for (const mode of modes) {
    const upstreamRequests = PROVIDERS.map((name) => mode.upstreamRequests[name]).join(' / ');
    console.log(
      `| ${mode.mode} | ${mode.ttftP50Ms.toFixed(0)} | ${mode.ttftP95Ms.toFixed(0)} | ${mode.ttftP99Ms.toFixed(0)} | ${upstreamRequests} | ${mode.cancelledUpstream} | ${(mode.extraUpstreamPerCallerRequest * 100).toFixed(1)} % |`,
    );
  }

  const healthy = modes.find((mode) => mode.mode === MODES[0]!.name)!;
  const hedge = modes.find((mode) => mode.mode === MODES[3]!.name)!;
  console.log('\ntargets:');
  const limitMs = 3 * healthy.ttftP95Ms;
  console.log(`  hedge p99 ${hedge.ttftP99Ms.toFixed(0)} ms ≤ 3 × healthy p95 (${limitMs.toFixed(0)} ms): ${hedge.ttftP99Ms <= limitMs ? 'PASS' : 'MISS'}`);
  console.log(`  hedge extra upstream ${(hedge.extraUpstreamPerCallerRequest * 100).toFixed(1)} % ≤ 10 %: ${hedge.extraUpstreamPerCallerRequest <= 0.1 ? 'PASS' : 'MISS'}`);
  const failoverMs = median(silentResult.failoverMs);
  const standbyMs = median(silentResult.standbyAloneMs);
  const overheadMs = failoverMs - FIRST_TOKEN_MIN_MS - standbyMs;
  console.log(
    `  silent primary behind auto (warmed with 25 answers): timeout in force ${[...new Set(silentResult.timeoutInForceMs)].join(', ')} ms, ` +
      `standby's whole answer after ${failoverMs.toFixed(0)} ms (median of ${silentResult.failoverMs.length}) = first_token_min_ms ${FIRST_TOKEN_MIN_MS} + standby ${standbyMs.toFixed(1)} + ${overheadMs.toFixed(1)} ms: ` +
      `${overheadMs <= FAILOVER_OVERHEAD_ALLOWED_MS ? 'PASS' : 'MISS'} (allowed ${FAILOVER_OVERHEAD_ALLOWED_MS} ms beyond the two)`,
  );
  if (options.json !== undefined) {
    writeFileSync(options.json, `${JSON.stringify({ tail, requests: options.requests, concurrency: options.concurrency, modes, silentPrimary: { ...silentResult, overheadMs } }, null, 2)}\n`);
  }
}

function parseOptions(argv: readonly string[]): TailOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: 'boolean', default: false },
      requests: { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      warm: { type: 'string', default: '40' },
      'fast-ms': { type: 'string', default: '50' },
      'tail-ms': { type: 'string' },
      'tail-share': { type: 'string', default: '0.05' },
      seed: { type: 'string', default: '17' },
      json: { type: 'string' },
    },
    strict: true,
  });
  // Quick: a smoke run of a few seconds, its figures too few to mean much.
  const quick = values.quick;
  return {
    requests: boundedNumber('--requests', values.requests ?? (quick ? '40' : '1000'), 1, 100_000, true),
    concurrency: boundedNumber('--concurrency', values.concurrency, 1, 256, true),
    warm: boundedNumber('--warm', quick ? '25' : values.warm, 25, 10_000, true),
    tail: {
      fastMs: boundedNumber('--fast-ms', values['fast-ms'], 1, 10_000, true),
      tailMs: boundedNumber('--tail-ms', values['tail-ms'] ?? (quick ? '500' : '5000'), 1, 60_000, true),
      tailShare: boundedNumber('--tail-share', values['tail-share'], 0, 1, false),
      seed: boundedNumber('--seed', values.seed, 0, 2 ** 32 - 1, true),
    },
    silentRequests: quick ? 2 : 5,
    json: values.json,
  };
}
