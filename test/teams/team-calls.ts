/** What the teams tests share: a gateway's config, admin calls with any credential, a chat request. Not a test file itself. */
import { keysAuth } from '../support/virtual-keys.js';

import { ADMIN_TOKEN } from '../support/admin-calls.js';

export { ADMIN_TOKEN, adminCall, createTeam, createTeamKey, type AdminAnswer } from '../support/admin-calls.js';

/** Priced, so requests cost something: $5 000 / $7 000 per million tokens in and out. */
const PRICE = 'price: { input_per_mtok: 5000, output_per_mtok: 7000 }';

/** A gateway that sets nothing but its store, keys, the admin token and two routes to the mock. */
export function teamsConfig(storeLine: string): string {
  return `${storeLine}
${keysAuth(ADMIN_TOKEN)}
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock, ${PRICE} }] }
  search: { targets: [{ connection: mock-openai, model: gpt-mock, ${PRICE} }] }
`;
}

/** A chat request with `key` to `model`; its status. */
export async function chat(url: string, key: string, model = 'chat'): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hello there' }] }),
    signal: AbortSignal.timeout(30_000),
  });
  await response.text();
  return response.status;
}
