import { expect, it } from 'vitest';
import { postgresAvailable } from '../support/postgres-server.js';
import { redisAvailable } from '../support/redis-server.js';
import { runBenchScript } from './run-bench-script.js';

const RUN_TIMEOUT_MS = 150_000;
const available = redisAvailable() && postgresAvailable();

it.skipIf(!available)(
  'npm run bench:soak for 30 s at 10 requests/s through a PostgreSQL stop, then one with a replica killed meanwhile, prints each fault, a row per phase, the killed replica\'s files adopted, and as many records and spend rows stored as requests answered',
  async () => {
    const { code, stdout, stderr } = await runBenchScript('fault-soak.js', ['--duration', '30', '--rps', '10', '--faults', 'postgres-stop,postgres-stop-kill'], RUN_TIMEOUT_MS);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });

    // The faults and their recovery, as they happened, between the baseline's line and the last recovery's.
    const events = [
      'phase "baseline"',
      'postgres-stop: PostgreSQL stopped',
      'postgres-stop: PostgreSQL started again',
      'phase "after postgres-stop"',
      'postgres-stop-kill: PostgreSQL stopped (pg_ctl stop -m immediate',
      'postgres-stop-kill: SIGKILL replica 3',
      'postgres-stop-kill: PostgreSQL started again',
      'postgres-stop-kill: replica 3 started again in the shared directory',
      "the killed replica's files were adopted by replica",
      'phase "after postgres-stop-kill"',
    ];
    const positions = events.map((event) => stdout.indexOf(event));
    expect(Object.fromEntries(events.map((event, index) => [event, positions[index]! >= 0]))).toEqual(Object.fromEntries(events.map((event) => [event, true])));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(stdout).toMatch(/SIGKILL replica 3 \(\S+\), its spill files holding [1-9]\d* records and [1-9]\d* spend rows/);
    expect(stdout.match(/no spill file left \d+\.\d s after PostgreSQL returned/g)).toHaveLength(2);

    const number = '\\d+(\\.\\d+)? (ms|s)|–';
    for (const phase of ['warm-up', 'baseline', 'postgres-stop', 'after postgres-stop', 'postgres-stop-kill', 'after postgres-stop-kill']) {
      expect(stdout).toMatch(new RegExp(`^${phase} +\\d+\\.\\d–\\d+\\.\\d +\\d+ +\\d+ +\\d+( +(${number})){6}$`, 'm'));
    }
    const whole = /^whole run +(\d+) +(\d+) +(\d+) /m.exec(stdout);
    const [sent, answered, errors] = whole!.slice(1).map(Number) as [number, number, number];
    expect(sent).toBe(300);
    expect(answered + errors).toBe(sent);
    expect(answered).toBeGreaterThan(0);
    expect(stdout).toContain(`requests answered: ${answered} of ${sent} sent (300 scheduled); errors: ${errors}`);
    expect(stdout).toMatch(/^max stall: longest request \d.* \(in .+\); longest gap between stream chunks \d.* \(in .+\)$/m);

    expect(stdout).toContain(`records stored / answered       ${answered} / ${answered}`);
    expect(stdout).toContain(`spend rows stored / answered    ${answered} / ${answered}`);
    expect(stdout).toContain('request ids stored twice        0');
    expect(stdout).toMatch(/^PASS: every answered request has exactly one record and one spend row$/m);
  },
  RUN_TIMEOUT_MS + 5_000,
);
