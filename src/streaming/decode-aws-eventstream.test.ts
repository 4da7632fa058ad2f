import { crc32 } from 'node:zlib';
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { describe, expect, it } from 'vitest';
import type { SseFrame } from './sse-frame.js';
import { AwsEventStreamDecoder, CorruptEventStreamError } from './decode-aws-eventstream.js';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function stringHeaders(headers: Record<string, string>): MessageHeaders {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { type: 'string', value }]));
}

function eventMessage(eventType: string, payload: string): Uint8Array {
  return codec.encode({
    headers: stringHeaders({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }),
    body: fromUtf8(payload),
  });
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

function decodeAll(pieces: Uint8Array[]): SseFrame[] {
  const decoder = new AwsEventStreamDecoder();
  const frames: SseFrame[] = [];
  for (const piece of pieces) decoder.push(piece, frames);
  return frames;
}

const start = eventMessage('messageStart', '{"role":"assistant"}');
const delta = eventMessage('contentBlockDelta', '{"contentBlockIndex":0,"delta":{"text":"café"}}');
const expected = [
  { event: 'messageStart', data: '{"role":"assistant"}' },
  { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"café"}}' },
];

describe('AwsEventStreamDecoder', () => {
  it('decodes several messages from one read', () => {
    expect(decodeAll([concat(start, delta)])).toEqual(expected);
  });

  it('decodes messages split at every possible byte', () => {
    const bytes = concat(start, delta);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(decodeAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
    }
    expect(decodeAll([...bytes].map((byte) => Uint8Array.of(byte)))).toEqual(expected);
  });

  it('emits each frame once, into the batch of the read that completed it', () => {
    const decoder = new AwsEventStreamDecoder();
    const batches: SseFrame[][] = [[], [], []];
    decoder.push(concat(start, delta.subarray(0, 5)), batches[0]!);
    decoder.push(delta.subarray(5, 30), batches[1]!);
    decoder.push(delta.subarray(30), batches[2]!);
    expect(batches).toEqual([[expected[0]], [], [expected[1]]]);
  });

  it('names an exception frame by its :exception-type', () => {
    const exception = codec.encode({
      headers: stringHeaders({ ':exception-type': 'throttlingException', ':content-type': 'application/json', ':message-type': 'exception' }),
      body: fromUtf8('{"message":"Too many tokens"}'),
    });
    expect(decodeAll([exception])).toEqual([{ event: 'throttlingException', data: '{"message":"Too many tokens"}' }]);
  });

  it('turns an unmodeled error message, which has no payload, into an error frame with its code and text', () => {
    const error = codec.encode({
      headers: stringHeaders({ ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'Something broke' }),
      body: new Uint8Array(0),
    });
    expect(decodeAll([error])).toEqual([{ event: 'error', data: '{"__type":"InternalFailure","message":"Something broke"}' }]);
  });

  it('throws on a message whose checksum fails, after the frames before it', () => {
    const corrupt = delta.slice();
    corrupt[corrupt.length - 10]! ^= 0x01;
    const decoder = new AwsEventStreamDecoder();
    const frames: SseFrame[] = [];
    expect(() => decoder.push(concat(start, corrupt), frames)).toThrow(CorruptEventStreamError);
    expect(frames).toEqual([expected[0]]);
  });

  it('throws on a corrupt prelude at once, without waiting for the length it claims', () => {
    const corrupt = start.slice();
    corrupt[1] = 0x7f;
    const decoder = new AwsEventStreamDecoder();
    expect(() => decoder.push(corrupt.subarray(0, 12), [])).toThrow(/prelude failed its checksum/);
  });

  it('refuses a prelude that claims more than the format allows, rather than buffering for it', () => {
    // A valid prelude (its CRC holds) claiming 1 GiB.
    const prelude = new Uint8Array(12);
    const view = new DataView(prelude.buffer);
    view.setUint32(0, 1024 * 1024 * 1024);
    view.setUint32(4, 0);
    view.setUint32(8, crc32(prelude.subarray(0, 8)));
    expect(() => new AwsEventStreamDecoder().push(prelude, [])).toThrow(/more than the format allows/);
  });
});
