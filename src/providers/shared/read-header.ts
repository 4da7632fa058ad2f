import type { ResponseHeaders } from '../spec.js';

/** The first value of a response header; undici gives repeated headers as arrays. */
export function readHeader(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
