/** What the access tests share: admin calls with any credential, and admin tokens made through the API. Not a test file itself. */

export { ADMIN_TOKEN, adminCall, createToken, type AdminAnswer, type CreatedToken } from '../support/admin-calls.js';
import type { AdminAnswer } from '../support/admin-calls.js';

/** A chat request to `model` with `key`, answered by the mock. */
export async function chatWith(url: string, key: string, model = 'r'): Promise<AdminAnswer> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as AdminAnswer['body'] };
}
