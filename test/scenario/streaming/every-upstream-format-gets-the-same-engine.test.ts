import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAnswerText } from '../../../src/mock/mock-provider.js';
import { ADMIN_TOKEN, fetchRecord } from '../scenario-helpers.js';
import { startGateway, type TestGateway } from '../../support/start-gateway.js';
import { openAiClient } from '../../support/sdk-clients.js';

/**
 * The attempt loop, health state and ledger do not know which wire format a target speaks: the
 * same injected failure gets the same treatment from an OpenAI, Anthropic, Gemini or Bedrock
 * target (docs/errors.md, lifecycle.md, health.md, keys-and-budgets.md).
 */
const FORMATS = ['openai', 'anthropic', 'gemini', 'bedrock'] as const;
const PRICE = '{ input_per_mtok: 1000, output_per_mtok: 2000 }';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  const connections = FORMATS.flatMap((format) => [
    `  ${format}-main: { provider: mock, dialect: ${format} }`,
    // A credential fault takes the whole connection out: it gets a connection of its own.
    `  ${format}-keyless: { provider: mock, dialect: ${format} }`,
  ]);
  const routes = FORMATS.flatMap((format) => [
    `  ${format}-retried:`,
    `    retries: 1`,
    `    backoff: { base_ms: 5, max_ms: 10 }`,
    `    targets:`,
    `      - { connection: ${format}-main, model: "${format}-flaky?status=503&times=1", price: ${PRICE} }`,
    `  ${format}-throttled:`,
    `    targets:`,
    `      - { connection: ${format}-main, model: "${format}-throttled?error=rate_limit&retry_after=30" }`,
    `      - { connection: fallback, model: after-${format}-throttled }`,
    `  ${format}-bad-key:`,
    `    targets:`,
    `      - { connection: ${format}-keyless, model: "${format}-bad-key?error=credential" }`,
    `      - { connection: fallback, model: after-${format}-bad-key }`,
    `  ${format}-cut:`,
    `    targets:`,
    `      - { connection: ${format}-main, model: "${format}-cut?cut_after=3", price: ${PRICE} }`,
  ]);
  gateway = await startGateway(
    [
      `admin: { token: ${ADMIN_TOKEN} }`,
      'connections:',
      '  fallback: { provider: mock, dialect: openai }',
      ...connections,
      'routes:',
      ...routes,
      '',
    ].join('\n'),
  );
  client = openAiClient(gateway.url);
});
afterAll(() => gateway.close());

const hello = [{ role: 'user' as const, content: 'hello' }];

describe.each(FORMATS)('a %s target', (format) => {
  it('is retried after a 503, and every billed attempt is in the record with its cost', async () => {
    const { data, response } = await client.chat.completions.create({ model: `${format}-retried`, messages: hello }).withResponse();
    expect(data.choices[0]!.message.content).toBe(mockAnswerText(8));
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.attempts.map((attempt) => [attempt.kind, attempt.http_status])).toEqual([
      ['server_error', 503],
      ['ok', 200],
    ]);
    const served = record.attempts[1]!;
    expect(served.usage?.output_tokens).toBe(8);
    expect(served.cost_usd).toBeCloseTo((served.usage!.input_tokens * 1000 + 8 * 2000) / 1e6, 9);
    expect(record.cost_usd).toBeCloseTo(served.cost_usd!, 9);
  });

  it('is cooled after a rate limit with Retry-After, and skipped while it cools', async () => {
    const first = await client.chat.completions.create({ model: `${format}-throttled`, messages: hello }).withResponse();
    expect(first.response.headers.get('x-switchyard-served-by')).toBe(`fallback/after-${format}-throttled`);
    const record = await fetchRecord(gateway.url, first.response.headers.get('x-request-id')!);
    expect(record.attempts[0]).toMatchObject({ kind: 'rate_limit', http_status: 429 });
    const second = await client.chat.completions.create({ model: `${format}-throttled`, messages: hello }).withResponse();
    expect(second.response.headers.get('x-switchyard-attempts')).toBe('1');
    expect(gateway.mock.attemptsFor(`${format}-throttled`)).toHaveLength(1);
  });

  it('with a bad key is a credential failure that takes its connection out', async () => {
    const { response } = await client.chat.completions.create({ model: `${format}-bad-key`, messages: hello }).withResponse();
    expect(response.headers.get('x-switchyard-served-by')).toBe(`fallback/after-${format}-bad-key`);
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.attempts[0]!.kind).toBe('credential');
    const health = (await (await fetch(`${gateway.url}/admin/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
      data: { deployment: string; state: string }[];
    };
    const states = health.data.filter((entry) => entry.deployment.startsWith(`${format}-keyless/`)).map((entry) => entry.state);
    expect(states).toEqual(['structural']);
  });

  it('cut after the commit point ends the caller stream as interrupted, billed from an estimate', async () => {
    const { data: stream, response } = await client.chat.completions.create({ model: `${format}-cut`, stream: true, messages: hello }).withResponse();
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(text).toBe(mockAnswerText(3));
    const record = await fetchRecord(gateway.url, response.headers.get('x-request-id')!);
    expect(record.status).toBe('interrupted');
    expect(record.attempts[0]).toMatchObject({ kind: 'stream_interrupted', committed: true });
    expect(record.attempts[0]!.usage?.estimated).toBe(true);
    expect(record.attempts[0]!.cost_usd).toBeGreaterThan(0);
  });
});
