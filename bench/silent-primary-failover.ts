/**
 * What a primary that goes silent costs the caller, with `first_token_ms: auto` and with the fixed
 * default (bench/silent-primary.ts does the measuring).
 *
 *   npm run build && node dist/bench/silent-primary-failover.js [--warm 25] [--requests 5]
 */
import { parseArgs } from 'node:util';
import { measureSilentPrimary, median } from './silent-primary.js';

const { values } = parseArgs({ options: { warm: { type: 'string', default: '25' }, requests: { type: 'string', default: '5' } } });
const options = { warm: wholeNumber('--warm', values.warm), requests: wholeNumber('--requests', values.requests) };

function wholeNumber(flag: string, text: string | undefined): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${flag} must be a whole number of at least 1 (got ${text})`);
  return value;
}

const results = [await measureSilentPrimary('first_token_ms: auto (bounds 1000–30000)', '{ first_token_ms: auto }', options), await measureSilentPrimary('first_token_ms: 30000 (the default)', '{}', options)];
console.log(`primary warmed with ${options.warm} streamed answers, then silent; ${options.requests} concurrent streamed requests per mode\n`);
console.log('| mode | timeout in force (ms) | until the standby\'s whole answer, median / max (ms) | standby alone, median (ms) |');
console.log('|---|---|---|---|');
for (const result of results) {
  const timeouts = [...new Set(result.timeoutInForceMs)].join(', ');
  console.log(`| ${result.mode} | ${timeouts} | ${median(result.failoverMs).toFixed(0)} / ${Math.max(...result.failoverMs).toFixed(0)} | ${median(result.standbyAloneMs).toFixed(1)} |`);
}
