/**
 * `npm run bench:agent-loop`: an agent's tool loop through the gateway, over the Responses
 * WebSocket and over HTTP (issue 42). The gateway is `switchyard serve` in a process of its own
 * (its CPU read from /proc); the mock, on the other side of an `openai-compatible` connection, and
 * the client run in this process. Each loop is `--turns` turns of one conversation with `store:
 * false`, as Codex sends them: a first turn with the agent's instructions, its tools and a task,
 * then each turn a tool's output. Over the socket a turn sends only its new item with
 * `previous_response_id` (the socket holds the conversation); over HTTP it sends the whole
 * conversation again, streamed back as SSE. Loops alternate (socket, HTTP, HTTP, socket, …) for
 * `--rounds`; per transport it prints the medians of: the turn's time (sent → last event), the
 * bytes the client sent per turn (bodies and messages, not headers or frames), and the gateway's
 * CPU per turn. The mock answers at once, so a turn's time is the gateway's and the loopback's.
 *
 *   npm run bench:agent-loop -- [--turns 20] [--rounds 5] [--json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { startMockProvider } from '../src/mock/mock-provider.js';
import { boundedNumber } from './bounded-number.js';
import { processCpuUs } from './proc-stats.js';
import { startServeProcess } from './serve-process.js';

type Transport = 'websocket' | 'http';
type Item = Record<string, unknown>;

interface LoopFigures {
  turnMs: number[];
  bytesSent: number;
  cpuUs: number;
}

/** An agent's standing context, as big as a coding agent's: a long system prompt and two dozen tools. */
const INSTRUCTIONS = `You are a coding agent working in a repository. ${'Follow the repository conventions, run the tests, and explain each change. '.repeat(120)}`;
const TOOLS = Array.from({ length: 24 }, (_, n) => ({
  type: 'function',
  name: `tool_${n}`,
  description: `Tool number ${n}: ${'reads or changes files in the working tree, '.repeat(6)}`,
  parameters: { type: 'object', properties: { path: { type: 'string', description: 'A path in the repository.' }, content: { type: 'string' } }, required: ['path'] },
}));
/** What a tool returns each turn: a file's worth of text. */
const TOOL_OUTPUT = 'line of a source file the tool read\n'.repeat(60);

function turnBody(turn: number, history: Item[], previousId: string | undefined, transport: Transport): Item {
  const next: Item = turn === 0 ? { type: 'message', role: 'user', content: 'Fix the failing test in src/app.ts.' } : { type: 'function_call_output', call_id: `call_${turn}`, output: TOOL_OUTPUT };
  const common = { model: 'agent', instructions: INSTRUCTIONS, tools: TOOLS, store: false, stream: true };
  if (transport === 'websocket') return { type: 'response.create', ...common, input: [next], ...(previousId ? { previous_response_id: previousId } : {}) };
  history.push(next);
  return { ...common, input: [...history] };
}

async function socketLoop(url: string, turns: number): Promise<Omit<LoopFigures, 'cpuUs'>> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/responses`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const turnMs: number[] = [];
  let bytesSent = 0;
  let previousId: string | undefined;
  try {
    for (let turn = 0; turn < turns; turn++) {
      const text = JSON.stringify(turnBody(turn, [], previousId, 'websocket'));
      const started = performance.now();
      const completed = new Promise<Item>((resolve, reject) => {
        const onMessage = (data: WebSocket.RawData) => {
          const event = JSON.parse(String(data)) as Item;
          if (event.type === 'response.completed') {
            ws.off('message', onMessage);
            resolve(event.response as Item);
          } else if (event.type === 'error' || event.type === 'response.failed') reject(new Error(`turn ${turn} failed: ${String(data)}`));
        };
        ws.on('message', onMessage);
      });
      ws.send(text);
      bytesSent += Buffer.byteLength(text);
      previousId = String((await completed).id);
      turnMs.push(performance.now() - started);
    }
  } finally {
    ws.close();
  }
  return { turnMs, bytesSent };
}

async function httpLoop(url: string, turns: number): Promise<Omit<LoopFigures, 'cpuUs'>> {
  const turnMs: number[] = [];
  const history: Item[] = [];
  let bytesSent = 0;
  for (let turn = 0; turn < turns; turn++) {
    const text = JSON.stringify(turnBody(turn, history, undefined, 'http'));
    const started = performance.now();
    const response = await fetch(`${url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text, signal: AbortSignal.timeout(30_000) });
    const sse = await response.text();
    if (response.status !== 200 || !sse.includes('response.completed')) throw new Error(`turn ${turn} failed: ${response.status} ${sse.slice(0, 300)}`);
    turnMs.push(performance.now() - started);
    bytesSent += Buffer.byteLength(text);
    const completed = JSON.parse(sse.slice(sse.lastIndexOf('data: ') + 6)) as { response: { output: Item[] } };
    history.push(...completed.response.output);
  }
  return { turnMs, bytesSent };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { turns: { type: 'string', default: '20' }, rounds: { type: 'string', default: '5' }, json: { type: 'string' } }, strict: true });
  const turns = boundedNumber('--turns', values.turns, 2, 200, true);
  const rounds = boundedNumber('--rounds', values.rounds, 1, 50, true);
  const mock = await startMockProvider();
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-agent-loop-'));
  const configFile = join(directory, 'config.yaml');
  writeFileSync(
    configFile,
    `store: { kind: sqlite, path: "${join(directory, 'switchyard.db')}" }
auth: { mode: none }
connections:
  upstream: { provider: openai-compatible, base_url: "${mock.url}/v1", api_key: bench-key }
routes:
  agent: { targets: [{ connection: upstream, model: "gpt-agent?chunks=20" }] }
`,
  );
  const gateway = await startServeProcess(configFile);
  const figures: Record<Transport, LoopFigures[]> = { websocket: [], http: [] };
  try {
    // One loop of each first, unmeasured: JIT, pools and the store warm up.
    await socketLoop(gateway.url, turns);
    await httpLoop(gateway.url, turns);
    for (let round = 0; round < rounds; round++) {
      const order: Transport[] = round % 2 === 0 ? ['websocket', 'http'] : ['http', 'websocket'];
      for (const transport of order) {
        const cpuBefore = processCpuUs(gateway.pid);
        const loop = transport === 'websocket' ? await socketLoop(gateway.url, turns) : await httpLoop(gateway.url, turns);
        figures[transport].push({ ...loop, cpuUs: processCpuUs(gateway.pid) - cpuBefore });
      }
    }
  } finally {
    await gateway.kill();
    await mock.close();
    rmSync(directory, { recursive: true, force: true });
  }
  const summary = Object.fromEntries(
    (['websocket', 'http'] as const).map((transport) => {
      const loops = figures[transport];
      return [
        transport,
        {
          turnMsMedian: median(loops.flatMap((loop) => loop.turnMs)),
          loopMsMedian: median(loops.map((loop) => loop.turnMs.reduce((sum, ms) => sum + ms, 0))),
          bytesSentPerTurn: median(loops.map((loop) => loop.bytesSent / turns)),
          cpuUsPerTurn: median(loops.map((loop) => loop.cpuUs / turns)),
        },
      ];
    }),
  ) as Record<Transport, { turnMsMedian: number; loopMsMedian: number; bytesSentPerTurn: number; cpuUsPerTurn: number }>;
  console.log(`agent loop: ${turns} turns, ${rounds} rounds per transport (medians; CPU from /proc at 10 ms ticks, per loop ÷ turns)`);
  console.log('transport    turn ms   loop ms   client bytes/turn   gateway CPU µs/turn');
  for (const [transport, row] of Object.entries(summary)) {
    console.log(`${transport.padEnd(10)} ${row.turnMsMedian.toFixed(2).padStart(9)} ${row.loopMsMedian.toFixed(1).padStart(9)} ${row.bytesSentPerTurn.toFixed(0).padStart(19)} ${row.cpuUsPerTurn.toFixed(0).padStart(21)}`);
  }
  const ratio = (field: keyof (typeof summary)['http']) => (summary.websocket[field] / summary.http[field]).toFixed(2);
  console.log(`websocket ÷ http: turn ${ratio('turnMsMedian')}×, loop ${ratio('loopMsMedian')}×, bytes ${ratio('bytesSentPerTurn')}×, CPU ${ratio('cpuUsPerTurn')}×`);
  if (values.json) writeFileSync(values.json, JSON.stringify({ turns, rounds, summary, figures }, null, 2));
}

await main();
