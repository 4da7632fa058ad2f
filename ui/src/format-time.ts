import { html, type TemplateResult } from 'lit-html';
import { relativeToTheSecond } from '../../src/records/relative-to-the-second.js';
import type { RequestRecord } from './admin-api-types.js';

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

/** "3 min ago", "in 2 hr": the largest unit that fits, in the browser's language. */
export function relativeTime(atMs: number, nowMs = Date.now()): string {
  let amount = (atMs - nowMs) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) return relative.format(Math.round(amount), unit);
    amount /= size;
  }
  return relative.format(Math.round(amount), 'year');
}

/** A time in the browser's zone with how long ago it was; the exact ISO time on hover. */
export function timeCell(iso: string | null | undefined, empty = '—'): TemplateResult | string {
  if (!iso) return empty;
  const atMs = Date.parse(iso);
  if (Number.isNaN(atMs)) return iso;
  return html`<time datetime=${iso} title=${iso}>${new Date(atMs).toLocaleString()} <span class="muted">(${relativeTime(atMs)})</span></time>`;
}

// Shared with the command line's record timeline (src/records/describe-record.ts).
export { formatMs } from '../../src/records/format-ms.js';

export function formatUsd(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return '—';
  return usd !== 0 && Math.abs(usd) < 0.01 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(2)}`;
}

export function formatShare(share: number | null | undefined): string {
  return share === null || share === undefined ? '—' : `${(share * 100).toFixed(1)} %`;
}

/**
 * A time in a table cell: the time of day to the second (with the date when not today), and how
 * far off to the second when `withRelative` (an ejection's end); the exact ISO time on hover.
 */
export function shortTimeCell(iso: string | null | undefined, empty = '—', withRelative = false): TemplateResult | string {
  if (!iso) return empty;
  const atMs = Date.parse(iso);
  if (Number.isNaN(atMs)) return iso;
  const at = new Date(atMs);
  const today = at.toDateString() === new Date().toDateString();
  return html`<time datetime=${iso} title=${`${iso} (${relativeTime(atMs)})`}>${today ? at.toLocaleTimeString() : at.toLocaleString()}${withRelative ? html` <span class="muted">(${relativeToTheSecond(atMs)})</span>` : ''}</time>`;
}

/** Token counts: exact below ten thousand, then with k and M. */
export function formatTokens(tokens: number | null | undefined): string {
  if (tokens === null || tokens === undefined) return '—';
  if (tokens < 10_000) return String(tokens);
  return tokens < 10_000_000 ? `${(tokens / 1000).toFixed(tokens < 100_000 ? 1 : 0)}k` : `${(tokens / 1_000_000).toFixed(1)}M`;
}

/** A record's tokens: prompt (cached ones included) / answer / prompt read from the provider's cache. */
export function formatUsage(usage: RequestRecord['usage']): string {
  if (!usage) return '—';
  return `${formatTokens(usage.input_tokens)} / ${formatTokens(usage.output_tokens)} / ${formatTokens(usage.cache_read_tokens ?? 0)}${usage.estimated ? ' (estimated)' : ''}`;
}
