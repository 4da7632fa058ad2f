import { expect, it } from 'vitest';
import { parseBenchOptions, type BenchOptions } from '../../bench/options.js';

function parse(...argv: string[]): BenchOptions {
  const parsed = parseBenchOptions(argv);
  if (parsed === 'help') throw new Error('expected options, got help');
  return parsed;
}

it('the bench runs one round alone and five alternating rounds against a baseline, unless --rounds says otherwise', () => {
  expect(parse()).toMatchObject({ rounds: 1, streams: [], pin: true, durationS: 5, warmupS: 1, connections: 32 });
  expect(parse('--baseline', '8a2fa5b')).toMatchObject({ rounds: 5, baseline: '8a2fa5b' });
  expect(parse('--baseline-dir', '/tmp/old')).toMatchObject({ rounds: 5, baselineDir: '/tmp/old' });
  expect(parse('--baseline', 'main', '--rounds', '3').rounds).toBe(3);
});

it('--streams takes one count or a comma-separated list, each with the stream length and chunk pause it uses', () => {
  expect(parse('--streams', '500')).toMatchObject({ streams: [500], streamS: 10, chunkMs: 50 });
  expect(parse('--streams', '500,2000,5000', '--stream-s', '2', '--chunk-ms', '20', '--unpinned')).toMatchObject({ streams: [500, 2000, 5000], streamS: 2, chunkMs: 20, pin: false });
});

it('a value out of bounds, a fraction where a count belongs, or two baselines at once is refused with the usage text', () => {
  expect(() => parse('--rounds', '0')).toThrow(/--rounds must be a whole number from 1 to 20[\s\S]*usage: npm run bench/);
  expect(() => parse('--streams', '500,abc')).toThrow(/--streams must be a whole number from 1 to 20000, got "abc"/);
  expect(() => parse('--streams', '20001')).toThrow(/--streams/);
  expect(() => parse('--connections', '1.5')).toThrow(/--connections must be a whole number/);
  expect(() => parse('--baseline', 'main', '--baseline-dir', '.')).toThrow(/not both/);
});
