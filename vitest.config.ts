import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Bounds for a hang, not for speed: CI runs on a busy 2-core machine where a gateway or CLI
    // start takes many times its 2 s at rest (PROCESS_START_TIMEOUT_MS in test/support/cli-process.ts).
    // A passing test never waits for them; speed is the bench's to measure (docs/testing.md).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default (one CPU less than the machine has) is one worker on CI's 2 cores, which
    // leaves a core idle while most tests wait on sockets and child processes: two halve the run.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
