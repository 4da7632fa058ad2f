import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { GatewayResponse } from '../../../src/http/gateway-response.js';
import { openRawConnection, postHead } from '../../support/raw-connection.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { hello } from '../scenario-helpers.js';

let gateway: TestGateway;
interface LogLine {
  level: number;
  msg: string;
  request_id?: string;
}
const logLines: LogLine[] = [];
let onLogLine: ((line: LogLine) => void) | undefined;

beforeAll(async () => {
  const logger = pino(
    { level: 'info' },
    {
      write: (text: string) => {
        const line = JSON.parse(text) as LogLine;
        logLines.push(line);
        onLogLine?.(line);
      },
    },
  );
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

it('a caller that closes its connection halfway through its body is recorded cancelled (499), not as a gateway failure', async () => {
  const body = JSON.stringify({ model: 'chat', messages: hello });
  const requestId = new Promise<string>((resolve) =>
    gateway.app.server.once('request', (_request, response: GatewayResponse) => resolve(response.requestId)),
  );
  const connection = await openRawConnection(gateway.url);
  connection.send(postHead('/v1/chat/completions', Buffer.byteLength(body)) + body.slice(0, 10));
  const id = await requestId;
  // The request's log line is written just after its record is kept.
  const logged = new Promise<void>((resolve) => {
    onLogLine = (line) => {
      if (line.request_id === id) resolve();
    };
  });
  connection.socket.destroy();
  await logged;

  expect(await gateway.app.records.get(id)).toMatchObject({ status: 'cancelled', http_status: 499, error_code: 'cancelled', attempts: [] });
  expect(gateway.mock.attempts).toHaveLength(0);
  expect(logLines.filter((line) => line.level >= 50)).toEqual([]);
});
