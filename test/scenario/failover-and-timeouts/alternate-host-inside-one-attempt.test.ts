import { afterAll, beforeAll, expect, it } from 'vitest';
import { signAwsRequest } from '../../../src/credentials/sign-aws-request.js';
import { startMockProvider, type MockProvider } from '../../../src/mock/mock-provider.js';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';

let external: MockProvider;
let gateway: TestGateway;

beforeAll(async () => {
  external = await startMockProvider();
  // Port 1 on loopback refuses connections: the connection's own host is unreachable.
  gateway = await startGateway(`
connections:
  mock-openai: { provider: mock, dialect: openai }
  with-alternate:
    provider: mock
    dialect: openai
    base_url: http://127.0.0.1:1/v1
    alternate_hosts: ["${external.url}/v1"]
routes:
  primary-unreachable:
    targets: [{ connection: with-alternate, model: gpt-alt }]
`);
});
afterAll(async () => {
  await gateway.close();
  await external.close();
});

it('an unreachable base URL with a working alternate host is served in one attempt', async () => {
  const response = await postChat(gateway.url, { model: 'primary-unreachable', messages: [{ role: 'user', content: 'hi' }] });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-attempts')).toBe('1');
  expect(response.headers.get('x-switchyard-served-by')).toBe('with-alternate/gpt-alt');
  expect(external.attemptsFor('gpt-alt')).toHaveLength(1);
});

it('a SigV4-signed Bedrock request is signed for the alternate host it goes to', async () => {
  const bedrock = await startGateway(`
connections:
  mock-openai: { provider: mock, dialect: openai }
  bedrock-alt:
    provider: bedrock
    region: us-west-2
    base_url: http://127.0.0.1:1
    alternate_hosts: ["${external.url}"]
    aws_access_key_id: AKIDALTERNATE
    aws_secret_access_key: alternate-secret
routes:
  bedrock-unreachable:
    targets: [{ connection: bedrock-alt, model: bedrock-alt-model }]
`);
  try {
    const response = await postChat(bedrock.url, { model: 'bedrock-unreachable', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    const attempt = external.attemptsFor('bedrock-alt-model').at(-1)!;
    // Re-sign what arrived, for the host it arrived at: the same signature means it was signed for this host.
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(attempt.headers.authorization!)![1]!.split(';');
    const headers = Object.fromEntries(signedHeaders.filter((name) => !['host', 'x-amz-date', 'x-amz-content-sha256'].includes(name)).map((name) => [name, attempt.headers[name]!]));
    const amzDate = attempt.headers['x-amz-date']!;
    const now = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
    const resigned = await signAwsRequest(
      { url: `${external.url}${attempt.path}`, method: 'POST', headers, body: JSON.stringify(attempt.body) },
      { accessKeyId: 'AKIDALTERNATE', secretAccessKey: 'alternate-secret' },
      'us-west-2',
      now,
    );
    expect(attempt.headers.authorization).toBe(resigned.headers.authorization);
  } finally {
    await bedrock.close();
  }
});
