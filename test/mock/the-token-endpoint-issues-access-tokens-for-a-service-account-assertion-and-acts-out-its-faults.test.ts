import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../src/mock/mock-provider.js';
import { jwtAssertion, postTokenGrant, serviceAccountAssertion } from './helpers.js';

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});

beforeEach(() => {
  mock.reset();
});

afterAll(async () => {
  await mock.close();
});

async function grant(directives = '', assertion?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const tokenUri = `${mock.url}/token${directives}`;
  const response = await postTokenGrant(tokenUri, assertion ?? serviceAccountAssertion(tokenUri));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('POST /token', () => {
  it('answers a service account assertion with a bearer access token for an hour, as Google does', async () => {
    const answer = await grant();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ access_token: expect.stringMatching(/^ya29\./) as unknown, expires_in: 3599, token_type: 'Bearer' });
    expect(mock.tokenGrants).toMatchObject([
      { n: 1, outcome: 'issued', subject: 'switchyard-test@proj-1.iam.gserviceaccount.com', token: 1, expiresInS: 3599 },
    ]);
  });

  it('gives a new token for each grant and honours expires_in', async () => {
    const first = await grant('?expires_in=5');
    const second = await grant('?expires_in=5');
    expect(first.body.expires_in).toBe(5);
    expect(first.body.access_token).not.toBe(second.body.access_token);
  });

  it('accepts an aud of the endpoint URL without its directives', async () => {
    const answer = await grant('?expires_in=60', serviceAccountAssertion(`${mock.url}/token`));
    expect(answer.status).toBe(200);
  });

  it('never records the token or the assertion', async () => {
    const tokenUri = `${mock.url}/token`;
    const assertion = serviceAccountAssertion(tokenUri);
    const answer = await grant('', assertion);
    const recorded = JSON.stringify(await (await fetch(`${mock.url}/_mock/token_grants`)).json());
    expect(recorded).toContain('"outcome":"issued"');
    expect(recorded).not.toContain(String(answer.body.access_token));
    expect(recorded).not.toContain(assertion.split('.')[1]);
  });
});

describe('POST /token refusals', () => {
  it.each([
    ['not a JWT', 'not-a-jwt', /not a JWT/],
    ['a JWT whose parts are not JSON', 'abc.def.ghi', /not a JWT/],
  ])('refuses %s with 400 invalid_grant', async (_, assertion, description) => {
    const answer = await grant('', assertion);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(description) as unknown });
  });

  it('refuses an assertion without the cloud-platform scope', async () => {
    const tokenUri = `${mock.url}/token`;
    const answer = await grant('', serviceAccountAssertion(tokenUri, { scope: 'https://www.googleapis.com/auth/devstorage.read_only' }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_grant');
    expect(answer.body.error_description).toContain('https://www.googleapis.com/auth/cloud-platform');
  });

  it('refuses an assertion meant for another token endpoint (its aud)', async () => {
    const answer = await grant('', serviceAccountAssertion('https://oauth2.googleapis.com/token'));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_grant');
    expect(answer.body.error_description).toContain(`${mock.url}/token`);
  });

  it('refuses another grant type', async () => {
    const response = await postTokenGrant(`${mock.url}/token`, jwtAssertion({}), 'client_credentials');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'unsupported_grant_type', error_description: 'Invalid grant_type: client_credentials' });
  });

  it('acts out refuse=invalid_grant and status=N, and records them', async () => {
    const refused = await grant('?refuse=invalid_grant');
    const unavailable = await grant('?status=503');
    expect(refused).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } });
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.error).toBe('temporarily_unavailable');
    expect(mock.tokenGrants.map((grant) => grant.outcome)).toEqual(['invalid_grant', 'status 503']);
  });

  it('names a directive it does not know, or a bad value, in a 400 invalid_request', async () => {
    const unknown = await grant('?expires=5');
    const bad = await grant('?expires_in=soon');
    expect(unknown.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('"expires=5"') as unknown });
    expect(bad.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('expires_in must be an integer') as unknown });
  });
});
