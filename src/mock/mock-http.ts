import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ErrorAnswer } from './wire.js';

export function sendJson(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string>,
  contentType = 'application/json',
): void {
  headers['content-type'] = contentType;
  headers['content-length'] = String(Buffer.byteLength(body));
  response.writeHead(status, headers);
  response.end(body);
}

export function sendError(response: ServerResponse, error: ErrorAnswer, headers: Record<string, string>): void {
  sendJson(response, error.status, error.body, Object.assign(headers, error.headers), error.contentType);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function headerText(value: string | string[] | undefined, separator: string): string | undefined {
  return Array.isArray(value) ? value.join(separator) : value;
}

export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const text = headerText(value, ', ');
    if (text !== undefined) flat[name] = text;
  }
  return flat;
}
