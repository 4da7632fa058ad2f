/**
 * What a primary that goes silent costs the caller, with `first_token_ms: auto` (the default) on a
 * warmed and on a cold gateway, and with the fixed 30 s that was the default before
 * (bench/silent-primary.ts does the measuring).
 *
 *   npm run build && node dist/bench/silent-primary-failover.js [--warm 25] [--requests 5]
 */
import { parseArgs } from 'node:util';
import { measureSilentPrimary, median } from './silent-primary.js';

const { values } = parseArgs({ options: { warm: { type: 'string', default: '25' }, requests: { type: 'string', default: '5' } } });
const options = { warm: wholeNumber('--warm', values.warm, 1), requests: wholeNumber('--requests', values.requests, 1) };

function wholeNumber(flag: string, text: string | undefined, least: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < least) throw new Error(`${flag} must be a whole number of at least ${least} (got ${text})`);
  return value;
}

const results = [
  await measureSilentPrimary(`first_token_ms: auto (the default), primary warmed with ${options.warm} answers`, '{}', options),
  // Nothing measured yet anywhere: the cold default decides.
  await measureSilentPrimary('first_token_ms: auto (the default), cold gateway', '{}', { ...options, warm: 0 }),
  await measureSilentPrimary(`first_token_ms: 30000 (the default before), primary warmed with ${options.warm} answers`, '{ first_token_ms: 30000 }', options),
];
console.log(`the primary goes silent; ${options.requests} concurrent streamed requests per mode\n`);
console.log('| mode | timeout in force (ms) | until the standby\'s whole answer, median / max (ms) | standby alone, median (ms) |');
console.log('|---|---|---|---|');
for (const result of results) {
  const timeouts = [...new Set(result.timeoutInForceMs)].join(', ');
  console.log(`| ${result.mode} | ${timeouts} | ${median(result.failoverMs).toFixed(0)} / ${Math.max(...result.failoverMs).toFixed(0)} | ${median(result.standbyAloneMs).toFixed(1)} |`);
}
