import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { postgresForThisFile } from './postgres-server.js';

/** One of the stores a gateway keeps records in: `store()` is the config's `store:` line for it. */
export interface StoreUnderTest {
  name: string;
  /** No PostgreSQL on this machine (which fails the run under `CI=true` instead). */
  skip: boolean;
  store(): Promise<string>;
}

/**
 * Both stores, for a test file that holds them to the same behaviour (`describe.each`): an SQLite
 * file in a directory of the file's own, and a database `name` on the file's own PostgreSQL, its
 * spill files in that directory. Both go with the file.
 */
export function bothStoresForThisFile(name: string): StoreUnderTest[] {
  const { available, server } = postgresForThisFile();
  const directory = mkdtempSync(join(tmpdir(), `switchyard-${name}-`));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  return [
    { name: 'SQLite file', skip: false, store: async () => `store: { kind: sqlite, path: "${join(directory, `${name}.db`)}" }` },
    { name: 'PostgreSQL', skip: !available, store: async () => `store: { kind: postgres, url: "${await server().createDatabase(name)}", spill_dir: "${directory}" }` },
  ];
}
