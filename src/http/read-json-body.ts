import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * Reads and parses a JSON request body (the raw text comes back too: idempotency hashes it), refusing one over `maxBytes` with 413 as soon as it
 * is known (from content-length, or while reading) rather than buffering it all.
 */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<{ text: string; json: unknown }> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readText(request, maxBytes);
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

/** data/end events rather than an async iterator: the cheapest read Node offers, per request. */
function readText(request: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.removeAllListeners('data');
        request.resume();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    request.once('end', () => resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8')));
    request.once('error', reject);
    request.once('close', () => {
      if (request.complete) return;
      reject(new GatewayError('The client closed the connection before sending its whole body.', { status: 400, code: 'invalid_request_error' }));
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
