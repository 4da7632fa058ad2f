import type { ResponseHeaders } from '../spec.js';
import { readHeader } from './read-header.js';

/**
 * How long the provider asked us to wait, in milliseconds. `retry-after-ms` (OpenAI's
 * non-standard header) is more precise, so it wins over `retry-after`, which is either
 * seconds (fractions allowed) or an HTTP date, measured here against `nowMs`.
 */
export function parseRetryAfterMs(headers: ResponseHeaders, nowMs: number): number | undefined {
  const milliseconds = parseNonNegativeNumber(readHeader(headers, 'retry-after-ms'));
  if (milliseconds !== undefined) return Math.round(milliseconds);

  const retryAfter = readHeader(headers, 'retry-after')?.trim();
  if (retryAfter === undefined || retryAfter === '') return undefined;
  const seconds = parseNonNegativeNumber(retryAfter);
  if (seconds !== undefined) return Math.round(seconds * 1000);

  const dateMs = Date.parse(retryAfter);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, dateMs - nowMs);
}

function parseNonNegativeNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return undefined;
  return Number(text);
}
