import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  chat: { targets: [{ connection: mock-openai, model: gpt-mock }] }
`);
});
afterAll(() => gateway.close());

it('answers', async () => {
  const client = new OpenAI({ apiKey: 'x', baseURL: `${gateway.url}/v1` });
  const ws = new ResponsesWS(client);
  const events: any[] = [];
  const done = new Promise<void>((resolve, reject) => {
    ws.on('event', (e: any) => { events.push(e); if (e.type === 'response.completed') resolve(); });
    ws.on('error', (e: any) => reject(e));
  });
  await new Promise((r) => ws.socket.once('open', r));
  ws.send({ type: 'response.create', model: 'chat', input: 'hello' } as any);
  await done;
  console.log(events.map((e) => e.type).join(' '));
  const id = events.at(-1).response.id;
  events.length = 0;
  const done2 = new Promise<void>((resolve, reject) => {
    ws.on('event', (e: any) => { if (e.type === 'response.completed') resolve(); });
  });
  ws.send({ type: 'response.create', model: 'chat', input: 'again', previous_response_id: id, store: false } as any);
  await done2;
  const records = (await gateway.app.records.list?.({})) as any;
  console.log(JSON.stringify(gateway.mock.attemptsFor('gpt-mock').at(-1)).slice(0, 600));
  ws.close();
});
