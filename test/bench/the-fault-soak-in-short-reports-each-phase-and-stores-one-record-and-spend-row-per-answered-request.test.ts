import { expect, it } from 'vitest';
import { postgresAvailable } from '../support/postgres-server.js';
import { redisAvailable } from '../support/redis-server.js';
import { runBenchScript } from './run-bench-script.js';

const RUN_TIMEOUT_MS = 150_000;
const available = redisAvailable() && postgresAvailable();

it.skipIf(!available)(
  'npm run bench:soak for 20 s at 10 requests/s through a PostgreSQL stop prints the fault, a row per phase, and as many records and spend rows stored as requests answered',
  async () => {
    const { code, stdout, stderr } = await runBenchScript('fault-soak.js', ['--duration', '20', '--rps', '10', '--faults', 'postgres-stop'], RUN_TIMEOUT_MS);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });

    // The fault and its recovery, as they happened, between the baseline's line and the recovery's.
    const events = ['phase "baseline"', 'postgres-stop: PostgreSQL stopped', 'postgres-stop: PostgreSQL started again', 'phase "after postgres-stop"'];
    const positions = events.map((event) => stdout.indexOf(event));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);

    const number = '\\d+(\\.\\d+)? (ms|s)|–';
    for (const phase of ['warm-up', 'baseline', 'postgres-stop', 'after postgres-stop']) {
      expect(stdout).toMatch(new RegExp(`^${phase} +\\d+\\.\\d–\\d+\\.\\d +\\d+ +\\d+ +\\d+( +(${number})){6}$`, 'm'));
    }
    const whole = /^whole run +(\d+) +(\d+) +(\d+) /m.exec(stdout);
    const [sent, answered, errors] = whole!.slice(1).map(Number) as [number, number, number];
    expect(sent).toBe(200);
    expect(answered + errors).toBe(sent);
    expect(answered).toBeGreaterThan(0);
    expect(stdout).toContain(`requests answered: ${answered} of ${sent} sent (200 scheduled); errors: ${errors}`);
    expect(stdout).toMatch(/^max stall: longest request \d.* \(in .+\); longest gap between stream chunks \d.* \(in .+\)$/m);

    expect(stdout).toContain(`records stored / answered       ${answered} / ${answered}`);
    expect(stdout).toContain(`spend rows stored / answered    ${answered} / ${answered}`);
    expect(stdout).toContain('request ids stored twice        0');
    expect(stdout).toMatch(/^PASS: every answered request has exactly one record and one spend row$/m);
  },
  RUN_TIMEOUT_MS + 5_000,
);
