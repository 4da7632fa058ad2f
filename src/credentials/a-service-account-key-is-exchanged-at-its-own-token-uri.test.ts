import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixtureJson } from '../../test/support/fixtures.js';
import type { TokenClock } from './cached-access-token.js';
import { CredentialUnavailable } from './credential-unavailable.js';
import { GoogleAccessTokens } from './google-access-tokens.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_KEY_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
/** A token endpoint's answer as Google gives it (test/contract/vertex/__fixtures__). */
const TOKEN_ANSWER = readFixtureJson('vertex', 'token-response.json');
/** Its refusal of a key's assertion, as gcloud printed it (`invalid_grant`). */
const TOKEN_REFUSAL = readFixtureJson('vertex', 'token-error-invalid-grant.json');

interface Exchange {
  path: string;
  form: URLSearchParams;
}

/** A token endpoint on 127.0.0.1: answers each exchange as its path's query asks (`?status=`, `?refuse=`, `?expires_in=`). */
let endpoint: Server;
let endpointUrl: string;
const exchanges: Exchange[] = [];

beforeAll(async () => {
  endpoint = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      exchanges.push({ path: url.pathname, form: new URLSearchParams(body) });
      const status = Number(url.searchParams.get('status') ?? 200);
      const refuse = url.searchParams.get('refuse');
      response.setHeader('content-type', 'application/json');
      if (refuse !== null) {
        response.writeHead(400).end(JSON.stringify({ ...TOKEN_REFUSAL, error: refuse }));
      } else if (status !== 200) {
        response.writeHead(status).end(JSON.stringify({ error: 'temporarily_unavailable' }));
      } else {
        const expiresIn = Number(url.searchParams.get('expires_in') ?? TOKEN_ANSWER.expires_in);
        response.writeHead(200).end(JSON.stringify({ ...TOKEN_ANSWER, access_token: `token-${exchanges.length}`, expires_in: expiresIn }));
      }
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => endpoint.close(() => resolve()));
});

function keyJson(tokenUri: string): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: 'my-project',
    private_key_id: 'key-1',
    private_key: PRIVATE_KEY_PEM,
    client_email: 'gateway@my-project.iam.gserviceaccount.com',
    token_uri: tokenUri,
  });
}

function decodePart(part: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(part ?? '', 'base64url').toString()) as Record<string, unknown>;
}

/** A clock whose renewals the test runs by hand. */
function manualClock() {
  const tasks: (() => void)[] = [];
  const clock: TokenClock = { now: Date.now, after: (_delayMs, task) => (tasks.push(task), () => undefined) };
  return { clock, runRenewals: () => tasks.splice(0).forEach((task) => task()) };
}

describe('a service-account key', () => {
  it("is exchanged at its own token_uri for a cloud-platform token, with an assertion it signed for that endpoint", async () => {
    const tokens = new GoogleAccessTokens();
    const before = exchanges.length;
    const bearer = await tokens.bearerFor('vertex-east', { credentials_json: keyJson(`${endpointUrl}/token`) });
    tokens.close();
    expect(bearer).toBe(`token-${before + 1}`);
    const exchange = exchanges[before];
    expect(exchange?.path).toBe('/token');
    expect(exchange?.form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const [header, payload, signature] = (exchange?.form.get('assertion') ?? '').split('.');
    expect(verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature ?? '', 'base64url'))).toBe(true);
    expect(decodePart(payload)).toMatchObject({
      iss: 'gateway@my-project.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: `${endpointUrl}/token`,
    });
  });

  it('is read from credentials_file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vertex-key-'));
    try {
      const file = join(dir, 'key.json');
      writeFileSync(file, keyJson(`${endpointUrl}/token`));
      const tokens = new GoogleAccessTokens();
      expect(await tokens.bearerFor('vertex-east', { credentials_file: file })).toMatch(/^token-\d+$/);
      tokens.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gets a new token in the background before the old one expires', async () => {
    const { clock, runRenewals } = manualClock();
    const tokens = new GoogleAccessTokens({ clock });
    const key = { credentials_json: keyJson(`${endpointUrl}/token?expires_in=60`) };
    const first = await tokens.bearerFor('vertex-east', key);
    expect(await tokens.bearerFor('vertex-east', key)).toBe(first);
    const before = exchanges.length;
    runRenewals();
    for (let waited = 0; exchanges.length === before && waited < 1_000; waited++) await new Promise((resolve) => setTimeout(resolve, 5));
    let renewed = first;
    for (let waited = 0; renewed === first && waited < 1_000; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      renewed = await tokens.bearerFor('vertex-east', key);
    }
    expect(renewed).toBe(`token-${before + 1}`);
    tokens.close();
  });
});

describe('a token that cannot be had', () => {
  it.each([
    ['refused by its endpoint', '/token?refuse=invalid_grant', /refused the key \(HTTP 400 invalid_grant\)/],
    ['from an endpoint that is down, asked once', '/token?status=503', /refused the key \(HTTP 503 temporarily_unavailable\)/],
  ])('is CredentialUnavailable naming the connection when %s, and never the key, the assertion or a token', async (_case, path, reason) => {
    const tokens = new GoogleAccessTokens();
    const before = exchanges.length;
    const failure = await tokens.bearerFor('vertex-east', { credentials_json: keyJson(`${endpointUrl}${path}`) }).catch((error: unknown) => error);
    tokens.close();
    expect(failure).toBeInstanceOf(CredentialUnavailable);
    const message = (failure as Error).message;
    expect(message).toMatch(/^connection vertex-east: no access token: the token endpoint http:\/\/127\.0\.0\.1:\d+\/token /);
    expect(message).toMatch(reason);
    expect(exchanges.length).toBe(before + 1);
    const assertion = exchanges.at(-1)?.form.get('assertion') ?? '';
    for (const secret of ['PRIVATE KEY', PRIVATE_KEY_PEM.split('\n')[1] ?? '', assertion]) expect(message).not.toContain(secret);
  });

  it('names credentials_file when the file is not there', async () => {
    const tokens = new GoogleAccessTokens();
    await expect(tokens.bearerFor('vertex-east', { credentials_file: '/nonexistent/key.json' })).rejects.toThrow(
      'connection vertex-east: no access token: credentials_file could not be read (ENOENT)',
    );
    tokens.close();
  });

  it('names credentials_json when it is not a service-account key, without quoting it', async () => {
    const tokens = new GoogleAccessTokens();
    const failure = (await tokens.bearerFor('vertex-east', { credentials_json: '{"type":"authorized_user","refresh_token":"1//secret"}' }).catch((error: unknown) => error)) as Error;
    expect(failure.message).toBe('connection vertex-east: no access token: credentials_json has type "authorized_user", not "service_account"');
    tokens.close();
  });

  it('says how to give a key when Application Default Credentials have none', async () => {
    const tokens = new GoogleAccessTokens({
      applicationDefault: () => () => Promise.reject(Object.assign(new Error('Could not load the default credentials.'), { code: 'ADC_NOT_FOUND' })),
    });
    await expect(tokens.bearerFor('vertex-east', {})).rejects.toThrow(/Application Default Credentials: could not be had \(ADC_NOT_FOUND\) \(give credentials_file or credentials_json/);
    tokens.close();
  });
});

describe('Application Default Credentials', () => {
  it('are used when the connection gives no key', async () => {
    const tokens = new GoogleAccessTokens({ applicationDefault: () => () => Promise.resolve({ token: 'from-the-metadata-server', lifetimeMs: 3_600_000 }) });
    expect(await tokens.bearerFor('vertex-east', {})).toBe('from-the-metadata-server');
    tokens.close();
  });
});
