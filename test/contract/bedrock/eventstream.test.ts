import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { describe, expect, it } from 'vitest';
import { classifyTransportError } from '../../../src/engine/classify-transport-error.js';
import { bedrockAdapter } from '../../../src/providers/bedrock/adapter.js';
import type { SseFrame } from '../../../src/streaming/sse-frame.js';
import { AwsEventStreamDecoder, CorruptEventStreamError } from '../../../src/streaming/decode-aws-eventstream.js';
import { chunked, randomChunkSizes, readFixture, replaySse, summarizeStream } from '../../support/fixtures.js';

const PROVIDER = 'bedrock';
const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One message per line of hex; `#` lines are comments. */
function hexMessages(text: string): Uint8Array[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => Uint8Array.from(Buffer.from(line, 'hex')));
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}

async function decodeInPieces(bytes: Uint8Array, sizes: readonly number[]): Promise<SseFrame[]> {
  const decoder = new AwsEventStreamDecoder();
  const frames: SseFrame[] = [];
  for await (const piece of chunked(bytes, sizes)) decoder.push(piece, frames);
  return frames;
}

const fixtureMessages = hexMessages(readFixture(PROVIDER, 'converse-stream-frames.hex.txt'));

const FIXTURE_FRAMES: SseFrame[] = [
  { event: 'messageStart', data: '{"role":"assistant"}' },
  { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Hello"}}' },
  { event: 'contentBlockStop', data: '{"contentBlockIndex":0}' },
  { event: 'messageStop', data: '{"stopReason":"end_turn"}' },
  {
    event: 'metadata',
    data: '{"usage":{"inputTokens":22,"outputTokens":55,"totalTokens":77},"metrics":{"latencyMs":2040}}',
  },
  { event: 'throttlingException', data: '{"message":"Too many tokens, please wait before trying again."}' },
  {
    event: 'contentBlockDelta',
    data: '{"contentBlockIndex":0,"delta":{"text":" there"},"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"}',
  },
];

describe('converse-stream-frames.hex.txt', () => {
  it('decodes to one frame per message, named by :event-type or :exception-type', async () => {
    expect(fixtureMessages).toHaveLength(FIXTURE_FRAMES.length);
    expect(await decodeInPieces(concat(fixtureMessages), [Number.MAX_SAFE_INTEGER])).toEqual(FIXTURE_FRAMES);
  });

  it('decodes to the same frames byte by byte and in random pieces', async () => {
    const bytes = concat(fixtureMessages);
    expect(await decodeInPieces(bytes, [1])).toEqual(FIXTURE_FRAMES);
    for (const seed of [7, 42, 2026]) {
      expect(await decodeInPieces(bytes, randomChunkSizes(seed, 97, 64))).toEqual(FIXTURE_FRAMES);
    }
  });

  it('gives the events the recorded stream has, the padded delta included', async () => {
    const [start, hello, stop, messageStop, metadata, , padded] = fixtureMessages;
    const bytes = concat([start!, hello!, padded!, stop!, messageStop!, metadata!]);
    const summary = summarizeStream(await replaySse(bytes, bedrockAdapter, randomChunkSizes(5)));
    expect(summary).toMatchObject({
      start: {},
      text: 'Hello there',
      finish: { reason: 'stop', providerReason: 'end_turn' },
      usage: { inputTokens: 22, outputTokens: 55 },
      errors: [],
      malformed: [],
    });
  });

  it('ends with the classified error at the exception frame', async () => {
    const [start, hello, , , , throttling, padded] = fixtureMessages;
    const events = await replaySse(concat([start!, hello!, throttling!, padded!]), bedrockAdapter, [3]);
    expect(events).toEqual([
      { type: 'response-start' },
      { type: 'text-delta', text: 'Hello' },
      {
        type: 'provider-error',
        error: { kind: 'rate_limit', type: 'throttlingException', message: 'Too many tokens, please wait before trying again.' },
      },
    ]);
  });

  it('fails the stream as broken when a message is corrupt', async () => {
    const corrupt = concat(fixtureMessages);
    corrupt[fixtureMessages[0]!.length + 40]! ^= 0xff;
    const failure = replaySse(corrupt, bedrockAdapter, randomChunkSizes(9));
    await expect(failure).rejects.toThrow(CorruptEventStreamError);
    const error = await failure.catch((caught: unknown) => caught);
    const live = new AbortController().signal;
    expect(classifyTransportError(error, { caller: live, attempt: live })).toMatchObject({
      kind: 'connection',
      type: 'AWS_EVENTSTREAM_CORRUPT',
    });
  });
});

describe('eventstream-framing.md', () => {
  it('decodes the reference vector: a content-type header and no event type', async () => {
    const vector = /`(0000003d[0-9a-f]+)`/.exec(readFixture(PROVIDER, 'eventstream-framing.md'))?.[1];
    expect(vector).toBeDefined();
    const frames = await decodeInPieces(Uint8Array.from(Buffer.from(vector!, 'hex')), [5]);
    expect(frames).toEqual([{ data: "{'foo':'bar'}" }]);
  });
});

describe('errors/stream-exception-frame.txt', () => {
  it('re-encoded, ends the stream with a server_error carrying its message', async () => {
    const text = readFixture(PROVIDER, 'errors/stream-exception-frame.txt');
    const headers: MessageHeaders = {};
    for (const [, name, value] of text.matchAll(/^\s+(:[a-z-]+)\s+=\s+(\S+)$/gm)) {
      headers[name!] = { type: 'string', value: value! };
    }
    const payload = /^payload:\n\s+(\{.*\})$/m.exec(text)?.[1];
    expect(Object.keys(headers)).toEqual([':exception-type', ':content-type', ':message-type']);
    expect(payload).toBeDefined();

    const exception = codec.encode({ headers, body: fromUtf8(payload!) });
    const start = codec.encode({
      headers: { ':event-type': { type: 'string', value: 'messageStart' }, ':message-type': { type: 'string', value: 'event' } },
      body: fromUtf8('{"role":"assistant"}'),
    });
    expect(await replaySse(concat([start, exception]), bedrockAdapter, [2])).toEqual([
      { type: 'response-start' },
      {
        type: 'provider-error',
        error: { kind: 'server_error', type: 'serviceUnavailableException', message: 'Bedrock is unable to process your request.' },
      },
    ]);
  });
});
