import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../app.js';
import { ConfigSource } from '../config/config-source.js';
import { InProcessMock } from '../mock/in-process-mock.js';
import { formatTable } from './format-table.js';

const DEMO_CONFIG = fileURLToPath(new URL('../../../examples/demo.yaml', import.meta.url));
const ROUTES = ['demo', 'demo-claude', 'demo-failover'] as const;

interface DemoRow {
  /** The x-request-id: what `switchyard requests show` takes. */
  id: string;
  route: string;
  stream: boolean;
  status: number;
  servedBy: string;
  attempts: string;
  latencyMs: number;
  answer: string;
}

/**
 * Starts the gateway on the embedded default with its in-process mock providers, sends a little
 * traffic to each demo route (streamed and not), and prints what the caller saw and who served.
 */
export async function runDemo(options: { requests: number }): Promise<void> {
  const configSource = ConfigSource.load(DEMO_CONFIG);
  const mock = new InProcessMock();
  await mock.follow(configSource, (error) => console.error(`switchyard: could not start the mock provider: ${(error as Error).message}`));
  const app = await createApp({ configSource, mockUrl: () => mock.url });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(`gateway on ${url} (config ${DEMO_CONFIG}); mock provider on ${mock.url}\n`);
  const rows: DemoRow[] = [];
  try {
    for (const route of ROUTES) {
      for (let index = 0; index < options.requests; index++) {
        const row = await send(url, route, index % 2 === 1);
        rows.push(row);
        process.stdout.write(`  ${route}${row.stream ? ' (stream)' : ''}: ${row.status} from ${row.servedBy} after ${row.attempts} attempt(s)\n`);
      }
    }
  } finally {
    await app.close();
    await mock.close();
  }
  console.log(
    `\n${formatTable(
      ['request', 'route', 'stream', 'status', 'served by', 'attempts', 'latency', 'answer'],
      rows.map((row) => [row.id, row.route, row.stream ? 'yes' : 'no', String(row.status), row.servedBy, row.attempts, `${row.latencyMs} ms`, row.answer]),
    )}`,
  );
  const failover = rows.filter((row) => row.route === 'demo-failover');
  const served = failover.filter((row) => row.status === 200).length;
  console.log(
    `\ndemo-failover: the primary (mock-openai) answered 503 every time; ${served} of ${failover.length} requests were still answered,` +
      ` by the standby on another provider, and the caller never saw the failure.`,
  );
  const example = failover[0]?.id ?? rows[0]?.id;
  const store = configSource.current.store;
  if (example && store.kind === 'sqlite') {
    console.log(
      `\nEvery request above has a record with each of its attempts in ${resolve(store.path)}.` +
        `\nWith \`npm start\` running in this directory, print one with: npx switchyard requests show ${example}`,
    );
  }
}

async function send(url: string, route: string, stream: boolean): Promise<DemoRow> {
  const startedAt = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: route, stream, messages: [{ role: 'user', content: 'Say something short.' }] }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const answer = stream ? streamedText(text) : ((JSON.parse(text) as { choices?: { message?: { content?: string } }[] }).choices?.[0]?.message?.content ?? '');
  return {
    id: response.headers.get('x-request-id') ?? '-',
    route,
    stream,
    status: response.status,
    servedBy: response.headers.get('x-switchyard-served-by') ?? '-',
    attempts: response.headers.get('x-switchyard-attempts') ?? '-',
    latencyMs: Math.round(performance.now() - startedAt),
    answer: answer.length > 32 ? `${answer.slice(0, 31)}…` : answer,
  };
}

function streamedText(body: string): string {
  let text = '';
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string } }[] };
    text += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}
