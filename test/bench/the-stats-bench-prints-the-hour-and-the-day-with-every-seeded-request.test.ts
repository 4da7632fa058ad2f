import { expect, it } from 'vitest';
import { runBenchScript } from './run-bench-script.js';

// Built first: `npm test` builds, as the bench children run from dist/ (see run-bench-script.ts).
it('npm run bench:stats in small: seeds the store, then reports both windows with every seeded request and a median', async () => {
  const { code, stdout, stderr } = await runBenchScript('stats-query.js', ['--records', '600', '--runs', '1'], 120_000);
  expect(code, stderr).toBe(0);
  // The windows run from the seeding's "now" to the query's: a slow start on a loaded machine
  // crosses more bucket boundaries, so the counts are a floor and a few more, not one number.
  expect(stdout).toMatch(/^seeded 600 records over the last day in \d+\.\d s, CPU \d+\.\d µs a record$/m);
  expect(stdout).toMatch(/^sqlite last hour by the minute: \d+ requests in 6\d buckets, \d routes, \d deployments, \d+ keys; median \d+ ms, max \d+ ms of 1 calls; CPU \d+ ms a call \(gateway and client\)$/m);
  expect(stdout).toMatch(/^sqlite last day by 5 minutes: 600 requests in (28[89]|29\d) buckets, 4 routes, 6 deployments, 20 keys; median \d+ ms, max \d+ ms of 1 calls; CPU \d+ ms a call \(gateway and client\)$/m);
  expect(stdout).toMatch(/^sqlite last day by 15 minutes: 600 requests in 9[6-9] buckets, /m);
  expect(stdout).not.toMatch(/postgres/);
});
