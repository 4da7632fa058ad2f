import { migrate } from '../store/migrate.js';
import { openStore } from '../store/open-database.js';
import { describePostgresUrl, migratePostgres } from '../store/postgres-store.js';
import { loadConfigFile } from './load-config-file.js';

/**
 * Creates or upgrades the configured store's schema, once (`serve` does the same on start, and
 * retries until the database answers; this reports and exits 1 instead). Returns the exit code.
 */
export async function runMigrate(options: { config: string }): Promise<number> {
  const configSource = loadConfigFile(options.config);
  if (!configSource) return 1;
  const store = configSource.current.store;
  configSource.close();
  if (store.kind === 'sqlite' && store.path === ':memory:') {
    console.log('store.path is ":memory:": a private database made anew on every start, nothing to migrate');
    return 0;
  }
  const where = store.kind === 'postgres' ? `the PostgreSQL store ${describePostgresUrl(store.url)}` : `the SQLite store ${store.path}`;
  try {
    if (store.kind === 'postgres') {
      await migratePostgres(store.url);
    } else {
      const opened = openStore(store);
      try {
        await migrate(opened.db);
      } finally {
        await opened.db.destroy();
      }
    }
  } catch (error) {
    // A refused connection to a name with several addresses is an AggregateError with no message of its own.
    const reason = (error as Error).message || ((error as { code?: string }).code ?? String(error));
    console.error(`switchyard: cannot migrate ${where}: ${reason}`);
    return 1;
  }
  console.log(`migrated ${where}: the schema is up to date`);
  return 0;
}
