import { describe, expect, it } from 'vitest';
import type { SseFrame } from '../providers/spec.js';
import { decodeSse } from './decode-sse.js';

async function framesOf(pieces: string[]): Promise<SseFrame[]> {
  async function* source() {
    for (const piece of pieces) yield new TextEncoder().encode(piece);
  }
  const frames: SseFrame[] = [];
  for await (const frame of decodeSse(source())) frames.push(frame);
  return frames;
}

describe('decodeSse', () => {
  it('decodes events split anywhere, with \\n, \\r\\n and \\r line endings', async () => {
    expect(await framesOf(['data: {"a"', ':1}\n\nevent: ping\nda', 'ta: {}\n\n'])).toEqual([{ data: '{"a":1}' }, { event: 'ping', data: '{}' }]);
    expect(await framesOf(['data: one\r\n\r\ndata: two\r\rdata: three\r\n\r\n'])).toEqual([{ data: 'one' }, { data: 'two' }, { data: 'three' }]);
  });

  it('joins multi-line data and ignores comments (keep-alives)', async () => {
    expect(await framesOf([': keep-alive\n\ndata: a\ndata: b\n\n'])).toEqual([{ data: 'a\nb' }]);
  });

  it('splits a multi-byte character across chunks correctly', async () => {
    const bytes = new TextEncoder().encode('data: café\n\n');
    async function* source() {
      yield bytes.slice(0, 9);
      yield bytes.slice(9);
    }
    const frames: SseFrame[] = [];
    for await (const frame of decodeSse(source())) frames.push(frame);
    expect(frames).toEqual([{ data: 'café' }]);
  });

  it('drops an event cut off before its blank line (the stream died mid-event)', async () => {
    expect(await framesOf(['data: complete\n\ndata: {"cut'])).toEqual([{ data: 'complete' }]);
  });
});
