import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { handleGetRequest, handleListRequests } from '../../src/admin/handle-requests.js';
import { createHttpServer } from '../../src/http/create-server.js';
import { guardAdminRoutes } from '../../src/http/guard-admin-routes.js';
import { RecordStore } from '../../src/records/record-store.js';
import { migrate } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/open-database.js';
import { SqliteInserts } from '../../src/store/sqlite-inserts.js';
import { TeamStore } from '../../src/teams/team-store.js';

export interface AdminServer {
  url: string;
  records: RecordStore;
  /** Changes the configured admin token (undefined: none configured). */
  setAdminToken(token: string | undefined): void;
  close(): Promise<void>;
}

/** The admin request routes alone on a loopback port, backed by an in-memory SQLite store. */
export async function startAdminServer(adminToken: string | undefined): Promise<AdminServer> {
  const { db, sqlite } = openStore({ kind: 'sqlite', path: ':memory:' });
  await migrate(db);
  const inserts = new SqliteInserts(sqlite);
  const records = new RecordStore({ db, writer: { insert: async (batch) => inserts.records(batch) } });
  let token = adminToken;
  const deps = { records, teams: new TeamStore(db) };
  const server = createHttpServer(
    guardAdminRoutes(
      {
        'GET /admin/requests': (request, response, _requestId, params) => handleListRequests(request, response, params, deps),
        'GET /admin/requests/:id': (request, response, _requestId, params) => handleGetRequest(request, response, params, deps),
      },
      { adminToken: () => token },
    ),
    pino({ level: 'silent' }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    records,
    setAdminToken: (next) => {
      token = next;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await records.close();
      await db.destroy();
    },
  };
}
