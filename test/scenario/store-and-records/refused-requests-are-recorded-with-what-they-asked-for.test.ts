import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, fetchRecord, hello } from '../scenario-helpers.js';
import { MOCK_CONNECTIONS, postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { createKey, keysAuth } from '../../support/virtual-keys.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
${keysAuth(ADMIN_TOKEN)}
${MOCK_CONNECTIONS}
routes:
  support: { targets: [{ connection: mock-openai, model: gpt-support }] }
`);
});
afterAll(() => gateway.close());
beforeEach(() => gateway.mock.reset());

/** Sends the request, checks the refusal the caller saw, and reads back its record. */
async function refusedRecord(
  body: unknown,
  headers: Record<string, string>,
  expected: { status: number; code: string },
): Promise<{ record: Awaited<ReturnType<typeof fetchRecord>>; message: string }> {
  const response = await postChat(gateway.url, body, headers);
  expect(response.status).toBe(expected.status);
  const error = ((await response.json()) as { error: { code: string; message: string } }).error;
  expect(error.code).toBe(expected.code);
  const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
  return { record, message: error.message };
}

describe('a request refused before the attempt loop is recorded with what it asked for and why', () => {
  it('bad input: the model and route read from the body that failed validation, the stream flag, the message', async () => {
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'bad-input' });
    const { record, message } = await refusedRecord(
      { model: 'support', stream: true, messages: [{ role: 'wizard', content: 'hi' }] },
      { authorization: `Bearer ${key}` },
      { status: 400, code: 'invalid_request_error' },
    );
    expect(record).toMatchObject({ status: 'rejected', http_status: 400, model_requested: 'support', route: 'support', stream: true, key_name: 'bad-input' });
    expect(record.error_message).toBe(message);
    expect(record.error_message).toMatch(/role/);
    expect(gateway.mock.attemptsFor('gpt-support')).toHaveLength(0);
  });

  it('bad key: the small body is read to learn the model, and the key never reaches the record', async () => {
    const badKey = 'sk-sy-not-a-real-key-0123456789abcdef';
    const { record, message } = await refusedRecord(
      { model: 'support', stream: true, messages: hello },
      { authorization: `Bearer ${badKey}` },
      { status: 401, code: 'invalid_api_key' },
    );
    expect(record).toMatchObject({ status: 'rejected', http_status: 401, model_requested: 'support', route: 'support', stream: true, key_name: null });
    expect(record.error_message).toBe(message);
    expect(JSON.stringify(record)).not.toContain(badKey);
    expect(gateway.mock.attemptsFor('gpt-support')).toHaveLength(0);
  });

  it('bad key with a body over 64 KiB: refused without parsing the body, so no model is recorded', async () => {
    const { record } = await refusedRecord(
      { model: 'support', messages: [{ role: 'user', content: 'x'.repeat(70 * 1024) }] },
      { authorization: 'Bearer sk-sy-not-a-real-key-0123456789abcdef' },
      { status: 401, code: 'invalid_api_key' },
    );
    expect(record).toMatchObject({ status: 'rejected', http_status: 401, model_requested: null, route: null, stream: false });
  });

  it('unknown model: the name as sent, no route, the 404 message', async () => {
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'unknown-model' });
    const { record, message } = await refusedRecord(
      { model: 'gpt-4o-typo', messages: hello },
      { authorization: `Bearer ${key}` },
      { status: 404, code: 'model_not_found' },
    );
    expect(record).toMatchObject({ status: 'rejected', http_status: 404, model_requested: 'gpt-4o-typo', route: null, stream: false });
    expect(record.error_message).toBe(message);
    expect(record.error_message).toContain('gpt-4o-typo');
  });

  it('a per-key limit: model, route, stream and the 429 message', async () => {
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'rpm-1', limits: { rpm: 1 } });
    const auth = { authorization: `Bearer ${key}` };
    expect((await postChat(gateway.url, { model: 'support', messages: hello }, auth)).status).toBe(200);
    const { record, message } = await refusedRecord(
      { model: 'support', stream: true, messages: hello },
      auth,
      { status: 429, code: 'rate_limit_exceeded' },
    );
    expect(record).toMatchObject({ status: 'rejected', http_status: 429, model_requested: 'support', route: 'support', stream: true, key_name: 'rpm-1' });
    expect(record.error_message).toBe(message);
    expect(gateway.mock.attemptsFor('gpt-support')).toHaveLength(1);
  });

  it('a secret echoed into the refusal message is redacted in the record', async () => {
    const { key } = await createKey(gateway.url, ADMIN_TOKEN, { name: 'secret-model' });
    const leaked = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
    const { record } = await refusedRecord({ model: leaked, messages: hello }, { authorization: `Bearer ${key}` }, { status: 404, code: 'model_not_found' });
    expect(JSON.stringify(record)).not.toContain(leaked);
    expect(record.error_message).toContain('[redacted]');
  });
});
