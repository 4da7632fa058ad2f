import type { IncomingMessage } from 'node:http';
import { CALLER_LEFT } from '../core/cancellation.js';
import { GatewayError } from '../errors/gateway-error.js';

export interface BodyLimits {
  maxBytes: number;
  /** How long the whole body may take to arrive, from when reading it starts. */
  timeoutMs: number;
}

/**
 * Reads and parses a JSON request body (the raw text comes back too: idempotency hashes it), refusing one over `maxBytes` with 413 as soon as it
 * is known (from content-length, or while reading) rather than buffering it all, and one that has
 * not arrived within `timeoutMs` with 408. A caller that goes away before its body is whole
 * rejects with `CALLER_LEFT`.
 */
export async function readJsonBody(request: IncomingMessage, limits: BodyLimits): Promise<{ text: string; json: unknown }> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBytes) throw tooLarge(limits.maxBytes);
  const text = await readText(request, limits);
  if (text.trim() === '') {
    throw new GatewayError('The request body is empty; send a JSON object.', { status: 400, code: 'invalid_json', type: 'invalid_request_error' });
  }
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch (error) {
    throw new GatewayError(`The request body is not valid JSON: ${(error as Error).message}`, {
      status: 400,
      code: 'invalid_json',
      type: 'invalid_request_error',
    });
  }
}

/** Whether the request comes with a body at all: endpoints whose body is optional read one only then. */
export function hasBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
}

/** data/end events rather than an async iterator: the cheapest read Node offers, per request. */
function readText(request: IncomingMessage, limits: BodyLimits): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // A body already parsed whole (the usual case: it came with the headers) needs no timer.
    const timer = request.complete
      ? undefined
      : setTimeout(() => {
          request.off('data', onData);
          reject(tooSlow(limits.timeoutMs));
        }, limits.timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) {
        clearTimeout(timer);
        request.off('data', onData);
        request.resume();
        reject(tooLarge(limits.maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => {
      clearTimeout(timer);
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    });
    // Before the body is whole, an error on the request stream is the connection going away.
    request.once('error', () => {
      clearTimeout(timer);
      reject(CALLER_LEFT);
    });
    request.once('close', () => {
      clearTimeout(timer);
      if (!request.complete) reject(CALLER_LEFT);
    });
  });
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError(`The request body is larger than server.max_body_bytes (${maxBytes} bytes).`, {
    status: 413,
    code: 'request_too_large',
    type: 'invalid_request_error',
  });
}

function tooSlow(timeoutMs: number): GatewayError {
  return new GatewayError(`The request body did not arrive within server.body_timeout_ms (${timeoutMs} ms).`, {
    status: 408,
    code: 'request_timeout',
    type: 'invalid_request_error',
  });
}
