/**
 * A real PostgreSQL for the tests, of their own (see `postgres-process.ts`), stopped and removed
 * afterwards. Under `CI=true` a missing PostgreSQL fails the run; elsewhere the tests that need
 * one skip, loudly, so `npm test` still passes on a machine without it.
 */
import { afterAll, beforeAll } from 'vitest';
import { POSTGRES_BIN_DIRECTORY, startPostgresServer, type PostgresServer } from './postgres-process.js';

export { startPostgresServer, type PostgresServer } from './postgres-process.js';

/** Whether the tests that need PostgreSQL can run here; says so loudly when they cannot. */
export function postgresAvailable(): boolean {
  if (POSTGRES_BIN_DIRECTORY) return true;
  const message = 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): install it with `apt-get install -y postgresql` to run the PostgreSQL store tests';
  if (process.env.CI === 'true') throw new Error(`${message}. CI must run them.`);
  console.warn(`\n*** SKIPPING: ${message}. ***\n`);
  return false;
}

/**
 * One PostgreSQL for the calling test file, when this machine has one: started before the file's
 * own `beforeAll` hooks and stopped after its `afterAll` hooks (vitest runs after-hooks in reverse),
 * so whatever a test file starts on it is stopped first. `server()` is for tests that run only
 * when `available`.
 */
export function postgresForThisFile(): { available: boolean; server(): PostgresServer } {
  const available = postgresAvailable();
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    if (available) server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });
  return {
    available,
    server() {
      if (!server) throw new Error('PostgreSQL is not running for this file');
      return server;
    },
  };
}
