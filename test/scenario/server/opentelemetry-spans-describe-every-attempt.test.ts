import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRequestSpans } from '../../../src/telemetry/request-spans.js';
import { MOCK_CONNECTIONS, postChat, startGateway } from '../../support/start-gateway.js';

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
  status?: { code?: number };
}

/** A stand-in OTLP/HTTP collector on loopback: keeps every span it is sent (JSON encoding). */
let collector: Server;
let collectorUrl: string;
const received: OtlpSpan[] = [];

beforeAll(async () => {
  collector = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

function attributes(span: OtlpSpan): Record<string, unknown> {
  return Object.fromEntries(span.attributes.map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? (value.doubleValue ?? value.boolValue) : Number(value.intValue))]));
}

it('with OTEL_EXPORTER_OTLP_ENDPOINT set, each request is a span with a child per attempt, in GenAI terms', async () => {
  const gateway = await startGateway(
    `
${MOCK_CONNECTIONS}
routes:
  traced:
    retries: 0
    targets:
      - { connection: mock-openai, model: "traced-down?status=503" }
      - { connection: mock-anthropic, model: traced-standby }
`,
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl } },
  );
  let requestId: string | null;
  try {
    const response = await postChat(gateway.url, { model: 'traced', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    await response.text();
    requestId = response.headers.get('x-request-id');
  } finally {
    // Closing flushes the batched spans to the collector.
    await gateway.close();
  }

  const requestSpan = received.find((span) => attributes(span)['switchyard.request_id'] === requestId)!;
  expect(requestSpan.name).toBe('chat traced');
  expect(requestSpan.kind).toBe(2); // SERVER
  expect(attributes(requestSpan)).toMatchObject({
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'traced',
    'gen_ai.response.model': 'traced-standby',
    'gen_ai.provider.name': 'mock',
    'gen_ai.usage.output_tokens': 8,
    'http.response.status_code': 200,
    'switchyard.attempts': 2,
  });
  const attempts = received.filter((span) => span.parentSpanId === requestSpan.spanId);
  expect(attempts.map((span) => [span.name, span.kind, attributes(span)['error.type'], attributes(span)['http.response.status_code']])).toEqual([
    ['chat traced-down?status=503', 3, 'server_error', 503],
    ['chat traced-standby', 3, undefined, 200],
  ]);
  expect(attempts.every((span) => span.traceId === requestSpan.traceId)).toBe(true);
  expect(attempts[0]!.status?.code).toBe(2); // ERROR
});

it('a key pasted as the model names no span and reaches no attribute: spans are named after the route, from the redacted record', async () => {
  const pasted = `sk-proj-${'a1B2'.repeat(12)}`;
  const gateway = await startGateway(`${MOCK_CONNECTIONS}\nroutes:\n  traced:\n    targets: [{ connection: mock-openai, model: traced-up }]\n`, {
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl },
  });
  let requestIds: (string | null)[];
  try {
    const refused = await postChat(gateway.url, { model: pasted, messages: [{ role: 'user', content: 'hi' }] });
    expect(refused.status).toBe(404);
    await refused.text();
    const served = await postChat(gateway.url, { model: 'traced', messages: [{ role: 'user', content: 'hi' }] });
    await served.text();
    requestIds = [refused.headers.get('x-request-id'), served.headers.get('x-request-id')];
  } finally {
    await gateway.close();
  }
  const spans = received.filter((span) => requestIds.includes(attributes(span)['switchyard.request_id'] as string));
  expect(spans).toHaveLength(2);
  expect(JSON.stringify(spans)).not.toContain(pasted);
  expect(spans.find((span) => attributes(span)['switchyard.request_id'] === requestIds[1])!.name).toBe('chat traced');
});

it('without an OTLP endpoint nothing is built (requests pay nothing for tracing)', () => {
  expect(createRequestSpans({})).toBeUndefined();
  expect(createRequestSpans({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
});
