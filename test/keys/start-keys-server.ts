import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { pino } from 'pino';
import { handleCreateKey, handleKeySpend, handleListKeys, handleRevokeKey, type AdminKeysDeps } from '../../src/admin/handle-keys.js';
import { guardAdminRoutes } from '../../src/http/guard-admin-routes.js';
import { createHttpServer } from '../../src/http/create-server.js';
import { KeyCache } from '../../src/keys/key-cache.js';
import { KeyStore } from '../../src/keys/key-store.js';
import { migrate } from '../../src/store/migrate.js';
import { openDatabase } from '../../src/store/open-database.js';
import type { DatabaseSchema } from '../../src/store/schema.js';
import { spentMicros } from '../../src/ledger/spend-query.js';
import { TeamStore } from '../../src/teams/team-store.js';

export interface KeysServer {
  url: string;
  db: Kysely<DatabaseSchema>;
  store: KeyStore;
  /** The cache the revoke handler invalidates: what the request path would authenticate with. */
  cache: KeyCache;
  /** The clock the handlers read; tests move it to check expiry and budget periods. */
  setNowMs(nowMs: number | undefined): void;
  close(): Promise<void>;
}

/** The admin key routes alone on a loopback port, over an in-memory SQLite store. */
export async function startKeysServer(adminToken: string | undefined): Promise<KeysServer> {
  const db = openDatabase({ kind: 'sqlite', path: ':memory:' });
  await migrate(db);
  let fixedNowMs: number | undefined;
  const nowMs = () => fixedNowMs ?? Date.now();
  const store = new KeyStore({ db, nowMs });
  const cache = new KeyCache({ store, nowMs });
  const deps: AdminKeysDeps = { store, teams: new TeamStore(db, { nowMs }), cache, nowMs, spentMicros: (keyId, sinceMs) => spentMicros(db, { keyId, sinceMs }) };
  const server = createHttpServer(
    guardAdminRoutes({
      'POST /admin/keys': (request, response, requestId, params) => handleCreateKey(request, response, params, deps, requestId),
      'GET /admin/keys': (request, response, _requestId, params) => handleListKeys(request, response, params, deps),
      'DELETE /admin/keys/:id': (request, response, requestId, params) => handleRevokeKey(request, response, params, deps, requestId),
      'GET /admin/keys/:id/spend': (request, response, _requestId, params) => handleKeySpend(request, response, params, deps),
    }, { adminToken: () => adminToken }),
    pino({ level: 'silent' }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    store,
    cache,
    setNowMs: (next) => {
      fixedNowMs = next;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await db.destroy();
    },
  };
}
