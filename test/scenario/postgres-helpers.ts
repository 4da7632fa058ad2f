/**
 * What the PostgreSQL scenario tests share: a gateway on a real PostgreSQL (see
 * test/support/postgres-server.ts) with virtual keys and a priced route, and direct reads of
 * its tables. Not a test file itself.
 */
import pg from 'pg';
import { postChat, startGateway, type TestGateway } from '../support/start-gateway.js';
import { keysAuth } from '../support/virtual-keys.js';
import { ADMIN_TOKEN } from './scenario-helpers.js';

export const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** `storeFields` are more `store` settings, as YAML flow-mapping entries (`retention_days: 30`). */
export function startGatewayOnPostgres(url: string, spillDirectory: string, storeFields = ''): Promise<TestGateway> {
  return startGateway(`
store: { kind: postgres, url: "${url}", spill_dir: "${spillDirectory}"${storeFields === '' ? '' : `, ${storeFields}`} }
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  paid:
    retries: 0
    targets: [{ connection: mock-openai, model: gpt-paid, price: { input_per_mtok: 1000, output_per_mtok: 1000 } }]
`);
}

export const askPaid = (gatewayUrl: string, key: string) =>
  postChat(gatewayUrl, { model: 'paid', messages: [{ role: 'user', content: 'hello' }] }, { authorization: `Bearer ${key}` });

/** One query on its own connection, straight to PostgreSQL (not through the gateway). */
export async function queryPostgres<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}
