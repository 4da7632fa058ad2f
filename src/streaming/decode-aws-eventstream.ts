import { crc32 } from 'node:zlib';
import { EventStreamCodec, type Message, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { SseFrame } from './sse-frame.js';
import type { FrameDecoder } from './frame-decoder.js';

/** Total length, headers length, then the CRC of those two. */
const PRELUDE_BYTES = 12;
/** The prelude and the message CRC. */
const MESSAGE_OVERHEAD_BYTES = 16;
/**
 * The format's own limits: 16 MiB of payload and 128 KiB of headers. A prelude claiming more is
 * corrupt (or hostile), and is refused before its bytes are waited for and buffered.
 */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024 + 128 * 1024 + MESSAGE_OVERHEAD_BYTES;

/**
 * Thrown when the stream's bytes fail a checksum or cannot be a message. Nothing after it can be
 * framed (the lengths are untrustworthy) and a skipped message could be a lost piece of the
 * answer, so the stream is broken; the `code` names the cause in the attempt record.
 */
export class CorruptEventStreamError extends Error {
  readonly code = 'AWS_EVENTSTREAM_CORRUPT';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CorruptEventStreamError';
  }
}

/**
 * `application/vnd.amazon.eventstream` (Bedrock's ConverseStream) from a byte stream. Messages
 * may be split anywhere across reads, and a read may hold several. Each message becomes one
 * frame: `event` is its `:event-type` (an exception's `:exception-type`), `data` its payload as
 * text. An unmodeled `error` message carries its code and text in headers instead; it becomes
 * an `error` frame whose data is the `{"__type", "message"}` JSON that AWS error bodies use.
 */
export class AwsEventStreamDecoder implements FrameDecoder {
  readonly #codec = new EventStreamCodec(toUtf8, fromUtf8);
  #pending: Uint8Array = new Uint8Array(0);
  /** Of the message at the start of `#pending`, once its prelude has been read and checked. */
  #messageBytes: number | undefined;

  push(chunk: Uint8Array, out: SseFrame[]): void {
    const bytes = this.#pending.length === 0 ? chunk : concat(this.#pending, chunk);
    let offset = 0;
    for (;;) {
      const available = bytes.length - offset;
      if (this.#messageBytes === undefined) {
        if (available < PRELUDE_BYTES) break;
        this.#messageBytes = readPrelude(bytes, offset);
      }
      if (available < this.#messageBytes) break;
      out.push(toFrame(this.#decode(bytes.subarray(offset, offset + this.#messageBytes))));
      offset += this.#messageBytes;
      this.#messageBytes = undefined;
    }
    // A copy, so that one small leftover does not keep a large read alive.
    this.#pending = bytes.slice(offset);
  }

  #decode(message: Uint8Array): Message {
    try {
      return this.#codec.decode(message);
    } catch (error) {
      throw new CorruptEventStreamError(`a corrupt event-stream message: ${(error as Error).message}`, { cause: error });
    }
  }
}

/**
 * The message's total length, once its prelude checksum holds: the prelude has its own CRC so
 * that a corrupt length is caught at once, rather than after waiting for bytes that never come.
 */
function readPrelude(bytes: Uint8Array, offset: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, PRELUDE_BYTES);
  const totalBytes = view.getUint32(0);
  const headerBytes = view.getUint32(4);
  if (crc32(bytes.subarray(offset, offset + 8)) !== view.getUint32(8)) {
    throw new CorruptEventStreamError('an event-stream message prelude failed its checksum');
  }
  if (totalBytes > MAX_MESSAGE_BYTES) {
    throw new CorruptEventStreamError(`an event-stream message claims ${totalBytes} bytes, more than the format allows`);
  }
  if (totalBytes < MESSAGE_OVERHEAD_BYTES + headerBytes) {
    throw new CorruptEventStreamError(`an event-stream message claims ${totalBytes} bytes with ${headerBytes} of headers`);
  }
  return totalBytes;
}

function toFrame({ headers, body }: Message): SseFrame {
  const messageType = stringHeader(headers, ':message-type');
  if (messageType === 'error') {
    const error = { __type: stringHeader(headers, ':error-code'), message: stringHeader(headers, ':error-message') };
    return { event: 'error', data: JSON.stringify(error) };
  }
  const event = stringHeader(headers, messageType === 'exception' ? ':exception-type' : ':event-type');
  const data = toUtf8(body);
  return event === undefined ? { data } : { event, data };
}

function stringHeader(headers: MessageHeaders, name: string): string | undefined {
  const header = headers[name];
  return header?.type === 'string' ? header.value : undefined;
}

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const joined = new Uint8Array(first.length + second.length);
  joined.set(first);
  joined.set(second, first.length);
  return joined;
}
