import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProviderAdapter, StreamEvent } from '../../src/providers/spec.js';
import type { SseFrame } from '../../src/streaming/sse-frame.js';
import { createFrameDecoder } from '../../src/streaming/create-frame-decoder.js';
import { readEventBatches } from '../../src/streaming/read-event-batches.js';

const CONTRACT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'contract');

function fixturesDir(provider: string): string {
  return join(CONTRACT_DIR, provider, '__fixtures__');
}

/** A recorded wire fixture, e.g. `readFixture('openai', 'errors/401-invalid-api-key.json')`. */
export function readFixture(provider: string, name: string): string {
  return readFileSync(join(fixturesDir(provider), name), 'utf8');
}

/** Every fixture file of a provider, as paths relative to its `__fixtures__` folder. */
export function listFixtures(provider: string): string[] {
  const root = fixturesDir(provider);
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [relative(root, join(dir, entry.name))],
    );
  return walk(root).sort();
}

export interface HttpFixture {
  status: number;
  /** Lower-case names, as undici gives them; repeated headers become arrays. */
  headers: Record<string, string | string[]>;
  body: string;
}

/** A recorded response: status line, headers, a blank line, then the body. */
export function parseHttpFixture(text: string): HttpFixture {
  const separator = /\r?\n\r?\n/.exec(text);
  const head = separator === null ? text : text.slice(0, separator.index);
  const body = separator === null ? '' : text.slice(separator.index + separator[0].length);
  const [statusLine = '', ...headerLines] = head.split(/\r?\n/);
  const status = Number(statusLine.split(' ')[1]);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP status line: ${statusLine}`);

  const headers: Record<string, string | string[]> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const existing = headers[name];
    headers[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  return { status, headers, body };
}

/** The text's UTF-8 bytes in pieces of the given sizes (cycled), as a network read would give them. */
export async function* chunked(text: string | Uint8Array, sizes: readonly number[]): AsyncIterable<Uint8Array> {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  let offset = 0;
  for (let turn = 0; offset < bytes.length; turn += 1) {
    const size = Math.max(1, sizes[turn % sizes.length] ?? bytes.length);
    yield bytes.slice(offset, offset + size);
    offset += size;
  }
}

/** Reproducible pseudo-random chunk sizes (1…maxSize) from a seed (mulberry32). */
export function randomChunkSizes(seed: number, count = 97, maxSize = 48): number[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: count }, () => 1 + Math.floor(next() * maxSize));
}

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of source) items.push(item);
  return items;
}

/**
 * Feeds a recorded stream (whole, or in the given chunk sizes) through the adapter's frame decoder
 * and stream parser, as the engine does.
 */
export async function replaySse(
  text: string | Uint8Array,
  adapter: Pick<ProviderAdapter, 'framing' | 'createStreamParser'>,
  sizes: readonly number[] = [Number.MAX_SAFE_INTEGER],
): Promise<StreamEvent[]> {
  const batches = await collect(readEventBatches(chunked(text, sizes), createFrameDecoder(adapter.framing), adapter.createStreamParser()));
  return batches.flat();
}

/** The adapter's stream parser over hand-written frames, stopping where the engine would. */
export function parseWith(adapter: Pick<ProviderAdapter, 'createStreamParser'>) {
  return async function* (frames: AsyncIterable<SseFrame>): AsyncIterable<StreamEvent> {
    const parser = adapter.createStreamParser();
    for await (const frame of frames) {
      const out: StreamEvent[] = [];
      parser.push(frame, out);
      yield* out;
      if (parser.done) return;
    }
  };
}

/** Frames as an async iterable, for hand-written stream cases. */
export async function* framesOf(...frames: SseFrame[]): AsyncIterable<SseFrame> {
  yield* frames;
}

type EventOf<Type extends StreamEvent['type']> = Extract<StreamEvent, { type: Type }>;

/** What a parsed stream amounts to, for asserting concrete values. */
export interface StreamSummary {
  start: Omit<EventOf<'response-start'>, 'type'> | undefined;
  text: string;
  reasoning: string;
  refusal: string;
  toolCalls: { index: number; id: string; name: string; arguments: string; ended: boolean }[];
  finish: Omit<EventOf<'finish'>, 'type'> | undefined;
  /** The last usage event (usage is cumulative). */
  usage: EventOf<'usage'>['usage'] | undefined;
  errors: EventOf<'provider-error'>['error'][];
  malformed: string[];
}

export function summarizeStream(events: readonly StreamEvent[]): StreamSummary {
  const summary: StreamSummary = {
    start: undefined,
    text: '',
    reasoning: '',
    refusal: '',
    toolCalls: [],
    finish: undefined,
    usage: undefined,
    errors: [],
    malformed: [],
  };
  for (const event of events) {
    switch (event.type) {
      case 'response-start': {
        const { type: _type, ...start } = event;
        summary.start = start;
        break;
      }
      case 'text-delta':
        summary.text += event.text;
        break;
      case 'reasoning-delta':
        summary.reasoning += event.text;
        break;
      case 'refusal-delta':
        summary.refusal += event.text;
        break;
      case 'tool-call-start':
        summary.toolCalls.push({ index: event.index, id: event.id, name: event.name, arguments: '', ended: false });
        break;
      case 'tool-call-delta': {
        const call = summary.toolCalls.find((candidate) => candidate.index === event.index);
        if (call === undefined) throw new Error(`tool-call-delta for unstarted index ${event.index}`);
        call.arguments += event.argumentsDelta;
        break;
      }
      case 'tool-call-end': {
        const call = summary.toolCalls.find((candidate) => candidate.index === event.index);
        if (call === undefined) throw new Error(`tool-call-end for unstarted index ${event.index}`);
        call.ended = true;
        break;
      }
      case 'usage':
        summary.usage = event.usage;
        break;
      case 'finish': {
        const { type: _type, ...finish } = event;
        summary.finish = finish;
        break;
      }
      case 'provider-error':
        summary.errors.push(event.error);
        break;
      case 'malformed-event':
        summary.malformed.push(event.data);
        break;
    }
  }
  return summary;
}

/** Event types in order, with runs of the same type collapsed (`text-delta ×40` → one). */
export function eventShape(events: readonly StreamEvent[]): string[] {
  return events.map((event) => event.type).filter((type, position, types) => type !== types[position - 1]);
}
