import { describe, expect, it } from 'vitest';
import type { SseFrame } from './sse-frame.js';
import { BrokenStreamError, SseDecoder } from './decode-sse.js';

function framesOf(pieces: (string | Uint8Array)[]): SseFrame[] {
  const decoder = new SseDecoder();
  const frames: SseFrame[] = [];
  for (const piece of pieces) decoder.push(typeof piece === 'string' ? new TextEncoder().encode(piece) : piece, frames);
  return frames;
}

describe('SseDecoder', () => {
  it('decodes events split anywhere, with \\n, \\r\\n and \\r line endings', () => {
    expect(framesOf(['data: {"a"', ':1}\n\nevent: ping\nda', 'ta: {}\n\n'])).toEqual([{ data: '{"a":1}' }, { event: 'ping', data: '{}' }]);
    expect(framesOf(['data: one\r\n\r\ndata: two\r\rdata: three\r\n\r\n'])).toEqual([{ data: 'one' }, { data: 'two' }, { data: 'three' }]);
  });

  it('joins multi-line data and ignores comments (keep-alives)', () => {
    expect(framesOf([': keep-alive\n\ndata: a\ndata: b\n\n'])).toEqual([{ data: 'a\nb' }]);
  });

  it('splits a multi-byte character across chunks correctly', () => {
    const bytes = new TextEncoder().encode('data: café\n\n');
    expect(framesOf([bytes.slice(0, 9), bytes.slice(9)])).toEqual([{ data: 'café' }]);
  });

  it('drops an event cut off before its blank line (the stream died mid-event)', () => {
    expect(framesOf(['data: complete\n\ndata: {"cut'])).toEqual([{ data: 'complete' }]);
  });

  it('makes a bare JSON line (Gemini\'s error after a 200) a frame of its own', () => {
    expect(framesOf(['data: {"a":1}\n\n{"error": {"code": 500}}\n'])).toEqual([{ data: '{"a":1}' }, { data: '{"error": {"code": 500}}' }]);
    expect(framesOf(['data: x\n\nnonsense line\n\n'])).toEqual([{ data: 'x' }]);
  });

  it('emits each frame once, into the batch of the read that completed it', () => {
    const decoder = new SseDecoder();
    const first: SseFrame[] = [];
    const second: SseFrame[] = [];
    decoder.push(new TextEncoder().encode('data: a\n\ndata: b'), first);
    decoder.push(new TextEncoder().encode('\n\n'), second);
    expect([first, second]).toEqual([[{ data: 'a' }], [{ data: 'b' }]]);
  });

  it('ends a stream whose one event grows past the limit instead of buffering it', () => {
    const decoder = new SseDecoder(64);
    const frames: SseFrame[] = [];
    decoder.push(new TextEncoder().encode('data: short\n\n'), frames);
    expect(frames).toEqual([{ data: 'short' }]);
    expect(() => decoder.push(new TextEncoder().encode(`data: ${'x'.repeat(100)}`), frames)).toThrow(BrokenStreamError);
  });
});
