import { describe, expect, it } from 'vitest';
import type { StreamEvent, StreamParser } from '../providers/spec.js';
import type { SseFrame } from './sse-frame.js';
import type { FrameDecoder } from './frame-decoder.js';
import { readEventBatches } from './read-event-batches.js';

/** Each chunk's text is a comma-separated list of frame data; `!` makes the decoder throw after what came before it. */
const listDecoder: FrameDecoder = {
  push(chunk: Uint8Array, out: SseFrame[]) {
    for (const data of new TextDecoder().decode(chunk).split(',')) {
      if (data === '!') throw new Error('corrupt frame');
      out.push({ data });
    }
  },
};

/** Every frame becomes a text delta; `end` is the stream's last word. */
class TextParser implements StreamParser {
  done = false;

  push(frame: SseFrame, out: StreamEvent[]): void {
    if (frame.data === 'end') this.done = true;
    else out.push({ type: 'text-delta', text: frame.data });
  }
}

async function* chunks(...texts: string[]): AsyncIterable<Uint8Array> {
  for (const text of texts) yield new TextEncoder().encode(text);
}

async function readAll(source: AsyncIterable<StreamEvent[]>): Promise<string[][]> {
  const batches: string[][] = [];
  for await (const batch of source) batches.push(batch.map((event) => (event.type === 'text-delta' ? event.text : event.type)));
  return batches;
}

describe('readEventBatches', () => {
  it('yields one batch per read that completed events', async () => {
    expect(await readAll(readEventBatches(chunks('a,b', 'c'), listDecoder, new TextParser()))).toEqual([['a', 'b'], ['c']]);
  });

  it('stops reading once the parser has heard the last word', async () => {
    let reads = 0;
    async function* counted(): AsyncIterable<Uint8Array> {
      for (const text of ['a,end,ignored', 'never']) {
        reads++;
        yield new TextEncoder().encode(text);
      }
    }
    expect(await readAll(readEventBatches(counted(), listDecoder, new TextParser()))).toEqual([['a']]);
    expect(reads).toBe(1);
  });

  it('delivers the frames a read completed before a corrupt one, then fails', async () => {
    const batches: string[][] = [];
    const failure = await (async () => {
      for await (const batch of readEventBatches(chunks('a', 'b,!'), listDecoder, new TextParser())) {
        batches.push(batch.map((event) => (event.type === 'text-delta' ? event.text : event.type)));
      }
    })().catch((error: unknown) => error);
    expect(batches).toEqual([['a'], ['b']]);
    expect(failure).toBeInstanceOf(Error);
  });
});
