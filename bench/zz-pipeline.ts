import { decodeSse } from '../src/streaming/decode-sse.js';
import { openAiAdapter } from '../src/providers/openai/adapter.js';
import { OpenAiStreamWriter } from '../src/outbound/openai-stream-writer.js';
import { startMockProvider } from '../src/mock/mock-provider.js';

const mock = await startMockProvider();
const res = await fetch(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm?chunks=64', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] }) });
const sseText = await res.text();
await mock.close();
const bytes = Buffer.from(sseText);
async function* source() { yield bytes; }

async function once(): Promise<number> {
  let n = 0;
  const writer = new OpenAiStreamWriter({ fallbackId: 'x', model: 'm', includeUsage: false });
  let out = '';
  for await (const event of openAiAdapter.parseStream(decodeSse(source()))) { out += writer.write(event); n++; }
  out += writer.end();
  return n;
}
async function decodeOnly(): Promise<number> { let n = 0; for await (const _ of decodeSse(source())) n++; return n; }
async function parseOnly(): Promise<number> { let n = 0; for await (const _ of openAiAdapter.parseStream(decodeSse(source()))) n++; return n; }
for (const [name, fn] of [['decode', decodeOnly], ['decode+parse', parseOnly], ['decode+parse+render', once]] as const) {
  for (let i = 0; i < 2000; i++) await fn();
  const N = 5000; const t = performance.now();
  for (let i = 0; i < N; i++) await fn();
  console.log(name, 'µs per stream', (((performance.now() - t) * 1000) / N).toFixed(1), 'events', await fn());
}
