import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { GatewayResponse } from '../../src/http/gateway-response.js';
import type { RequestRecord } from '../../src/core/request-record.js';
import { openRawConnection, postHead } from '../support/raw-connection.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { hello } from './scenario-helpers.js';

let gateway: TestGateway;
const logLines: { level: number; msg: string }[] = [];

beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line) as { level: number; msg: string }) });
  gateway = await startGateway(
    `
connections:
  mock-openai: { provider: mock, dialect: openai }
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock }] }
`,
    { logger },
  );
});
afterAll(() => gateway.close());

async function untilRecorded(id: string): Promise<RequestRecord> {
  const giveUpAt = Date.now() + 5_000;
  for (;;) {
    const record = await gateway.app.records.get(id);
    if (record) return record;
    if (Date.now() > giveUpAt) throw new Error(`no record for ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('a caller that closes its connection halfway through its body is recorded cancelled (499), not as a gateway failure', async () => {
  const body = JSON.stringify({ model: 'chat', messages: hello });
  const requestId = new Promise<string>((resolve) =>
    gateway.app.server.once('request', (_request, response: GatewayResponse) => resolve(response.requestId)),
  );
  const connection = await openRawConnection(gateway.url);
  connection.send(postHead('/v1/chat/completions', Buffer.byteLength(body)) + body.slice(0, 10));
  const id = await requestId;
  connection.socket.destroy();

  expect(await untilRecorded(id)).toMatchObject({ status: 'cancelled', http_status: 499, error_code: 'cancelled', attempts: [] });
  expect(gateway.mock.attempts).toHaveLength(0);
  expect(logLines.filter((line) => line.level >= 50)).toEqual([]);
});
