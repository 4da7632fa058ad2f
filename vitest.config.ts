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
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
