import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRawConnection, postHead, responseHeads } from '../../support/raw-connection.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

const BODY_TIMEOUT_MS = 300;

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway(`
server: { body_timeout_ms: ${BODY_TIMEOUT_MS} }
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock }] }
`);
});
afterAll(() => gateway.close());

it('a request body not received within server.body_timeout_ms gets 408 request_timeout, and its connection is closed', async () => {
  const body = JSON.stringify({ model: 'chat', messages: hello });
  const connection = await openRawConnection(gateway.url);
  const sentAtMs = Date.now();
  connection.send(postHead('/v1/chat/completions', Buffer.byteLength(body)) + body.slice(0, 10));
  const closedAtMs = await connection.closed;

  // Not before body_timeout_ms; the 408 below says that timer, not anything else, closed it.
  expect(closedAtMs - sentAtMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 5);
  const [head, ...others] = responseHeads(connection.received);
  expect(others).toEqual([]);
  expect(head!.status).toBe(408);
  expect(head!.headers.connection).toBe('close');
  const error = (JSON.parse(connection.received.slice(connection.received.indexOf('\r\n\r\n') + 4)) as {
    error: { code: string; type: string; message: string; request_id: string };
  }).error;
  expect(error).toMatchObject({ code: 'request_timeout', type: 'invalid_request_error', request_id: head!.headers['x-request-id'] });
  expect(error.message).toContain('server.body_timeout_ms');

  expect(gateway.mock.attempts).toHaveLength(0);
  const record = await gateway.app.records.get(head!.headers['x-request-id']!);
  expect(record).toMatchObject({ status: 'rejected', http_status: 408, error_code: 'request_timeout' });
});
