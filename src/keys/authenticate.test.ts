import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { authenticateRequest, authorizeRoute, mayUseRoute, type Principal } from './authenticate.js';
import { KeyCache } from './key-cache.js';
import { generateSecret, hashSecret } from './key-secret.js';
import type { KeyTeam, VirtualKey } from './virtual-key.js';

const NOW_MS = Date.parse('2025-06-01T12:00:00Z');

function sampleKey(overrides: Partial<VirtualKey> = {}): VirtualKey {
  return {
    id: 'key_sample',
    name: 'sample',
    keyPrefix: 'sk-sy-abcd',
    routes: null,
    direct: true,
    budget: null,
    rpm: null,
    tpm: null,
    expiresAt: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    revokedAt: null,
    teamId: null,
    kind: 'service',
    ownerId: null,
    ...overrides,
  };
}

const SEARCH: KeyTeam = { id: 'team_search', name: 'search', routes: ['search-*'], budget: null, rpm: 10, tpm: null, createdAt: '2025-01-01T00:00:00.000Z' };

/** A cache over an in-memory map of secret → key, with team `search`; `down` makes every key lookup fail, `teamsDown` every team lookup. */
function keysWith(entries: [string, VirtualKey][], options: { down?: boolean; teamsDown?: boolean } = {}): KeyCache {
  const byHash = new Map(entries.map(([secret, key]) => [hashSecret(secret), key]));
  return new KeyCache({
    store: {
      findByHash: async (hash) => {
        if (options.down) throw new Error('store unreachable');
        return byHash.get(hash);
      },
    },
    teams: {
      teamOf: async (teamId) => {
        if (options.teamsDown) throw new Error('store unreachable');
        return teamId === SEARCH.id ? SEARCH : undefined;
      },
      refresh: async () => undefined,
      forget: () => undefined,
    },
  });
}

async function refusal(headers: IncomingHttpHeaders, keys: KeyCache, nowMs = NOW_MS): Promise<GatewayError> {
  const error: unknown = await authenticateRequest(headers, { mode: 'keys', keys, nowMs }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof GatewayError)) throw new Error(`expected a GatewayError, got ${String(error)}`);
  return error;
}

describe('authenticateRequest', () => {
  const secret = generateSecret();
  const key = sampleKey();

  it('lets everyone in as anonymous under auth.mode none', async () => {
    const principal = await authenticateRequest({}, { mode: 'none', keys: keysWith([]), nowMs: NOW_MS });
    expect(principal).toEqual({ kind: 'anonymous' });
  });

  it('accepts the key as a bearer token or as x-api-key', async () => {
    const keys = keysWith([[secret, key]]);
    for (const headers of [{ authorization: `Bearer ${secret}` }, { authorization: `bearer  ${secret} ` }, { 'x-api-key': secret }]) {
      expect(await authenticateRequest(headers, { mode: 'keys', keys, nowMs: NOW_MS })).toEqual({ kind: 'key', key });
    }
  });

  it.each([
    ['no credentials', {}],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['another scheme', { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
    ['an empty x-api-key', { 'x-api-key': '  ' }],
  ])('answers 401 invalid_api_key to %s, saying how to send a key', async (_case, headers: IncomingHttpHeaders) => {
    const error = await refusal(headers, keysWith([[secret, key]]));
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
    expect(error.message).toMatch(/Missing API key.*Authorization: Bearer/);
  });

  it.each([
    ['an unknown key', generateSecret()],
    ['a malformed key', 'sk-sy-short'],
    ['a provider key', 'sk-proj-0123456789abcdef'],
  ])('answers 401 invalid_api_key to %s without echoing it', async (_case, presented) => {
    const error = await refusal({ authorization: `Bearer ${presented}` }, keysWith([[secret, key]]));
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
    expect(error.message).toMatch(/^Incorrect API key provided/);
    expect(error.message).not.toContain(presented);
    expect(error.message).not.toContain(presented.slice(0, 10));
  });

  it('answers 401 to a revoked key, saying so', async () => {
    const keys = keysWith([[secret, sampleKey({ revokedAt: '2025-05-01T00:00:00.000Z' })]]);
    const error = await refusal({ authorization: `Bearer ${secret}` }, keys);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(error.message).toContain('revoked');
  });

  it('answers 401 to an expired key, saying when it expired', async () => {
    const expiresAt = new Date(NOW_MS).toISOString();
    const keys = keysWith([[secret, sampleKey({ expiresAt })]]);
    const error = await refusal({ authorization: `Bearer ${secret}` }, keys);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(error.message).toBe(`This API key expired at ${expiresAt}.`);
  });

  it('accepts a secret a rotation replaced until its overlap ends, then answers 401 saying it was replaced', async () => {
    const until = new Date(NOW_MS + 1).toISOString();
    const keys = keysWith([[secret, sampleKey({ replacedSecretExpiresAt: until })]]);
    expect((await authenticateRequest({ 'x-api-key': secret }, { mode: 'keys', keys, nowMs: NOW_MS })).kind).toBe('key');
    const error = await refusal({ authorization: `Bearer ${secret}` }, keys, NOW_MS + 1);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(error.message).toBe(`This API key expired at ${until}: it was replaced by a rotation; use the new key.`);
  });

  it('accepts a key until its expiry', async () => {
    const keys = keysWith([[secret, sampleKey({ expiresAt: new Date(NOW_MS + 1).toISOString() })]]);
    expect((await authenticateRequest({ 'x-api-key': secret }, { mode: 'keys', keys, nowMs: NOW_MS })).kind).toBe('key');
  });

  it("a key of a team comes with its team; one whose team is gone, without", async () => {
    const ofTeam = sampleKey({ teamId: SEARCH.id });
    expect(await authenticateRequest({ 'x-api-key': secret }, { mode: 'keys', keys: keysWith([[secret, ofTeam]]), nowMs: NOW_MS })).toEqual({ kind: 'key', key: ofTeam, team: SEARCH });
    const orphan = sampleKey({ teamId: 'team_deleted' });
    expect(await authenticateRequest({ 'x-api-key': secret }, { mode: 'keys', keys: keysWith([[secret, orphan]]), nowMs: NOW_MS })).toEqual({ kind: 'key', key: orphan });
  });

  it("answers 503 gateway_unavailable when its team's store cannot be asked", async () => {
    const error = await refusal({ authorization: `Bearer ${secret}` }, keysWith([[secret, sampleKey({ teamId: SEARCH.id })]], { teamsDown: true }));
    expect(error).toMatchObject({ status: 503, code: 'gateway_unavailable' });
  });

  it('answers 503 gateway_unavailable, never 401, when the store cannot be asked', async () => {
    const error = await refusal({ authorization: `Bearer ${secret}` }, keysWith([[secret, key]], { down: true }));
    expect(error).toMatchObject({ status: 503, code: 'gateway_unavailable' });
    expect(error.retryAfterMs).toBeGreaterThan(0);
  });
});

describe('authorizeRoute', () => {
  const keyFor = (routes: string[] | null, options: { direct?: boolean } = {}): Principal => ({ kind: 'key', key: sampleKey({ routes, direct: options.direct ?? true }) });
  const named = (name: string) => ({ name, direct: false });
  const direct = (name: string) => ({ name, direct: true });

  it('lets anonymous callers and unrestricted keys use any route', () => {
    expect(() => authorizeRoute({ kind: 'anonymous' }, named('support'))).not.toThrow();
    expect(() => authorizeRoute(keyFor(null), direct('openai-prod/gpt-4.1'))).not.toThrow();
  });

  it('lets a key use the routes its globs cover', () => {
    expect(() => authorizeRoute(keyFor(['support-*', 'openai-prod/*']), named('support-drafts'))).not.toThrow();
    expect(() => authorizeRoute(keyFor(['support-*', 'openai-prod/*']), direct('openai-prod/gpt-4.1'))).not.toThrow();
  });

  it('answers 403 model_not_allowed naming the route for any other', () => {
    let error: unknown;
    try {
      authorizeRoute(keyFor(['support-*']), named('search'));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 403, code: 'model_not_allowed', param: 'model' });
    expect((error as GatewayError).message).toContain('"search"');
    expect((error as GatewayError).message).not.toContain('sk-sy-');
  });

  it("bounds a key of a team by the team's globs too, and the refusal names the team", () => {
    const ofTeam = (routes: string[] | null): Principal => ({ kind: 'key', key: sampleKey({ routes, teamId: SEARCH.id }), team: SEARCH });
    expect(() => authorizeRoute(ofTeam(null), named('search-drafts'))).not.toThrow();
    expect(() => authorizeRoute(ofTeam(null), named('support'))).toThrow(
      expect.objectContaining({ status: 403, code: 'model_not_allowed', message: expect.stringContaining('team "search"') }),
    );
    // Both must allow it: the key's globs refuse what its team's would allow, and say it is the key.
    expect(() => authorizeRoute(ofTeam(['support']), named('search-drafts'))).toThrow(
      expect.objectContaining({ code: 'model_not_allowed', message: 'This API key is not allowed to use the model "search-drafts".' }),
    );
    expect(mayUseRoute(ofTeam(['*']), 'search-drafts')).toBe(true);
    expect(mayUseRoute(ofTeam(['*']), 'support')).toBe(false);
  });

  it('answers 403 model_not_allowed to a key without the direct form that names a connection', () => {
    expect(() => authorizeRoute(keyFor(null, { direct: false }), direct('openai-prod/gpt-4.1'))).toThrow(
      expect.objectContaining({ status: 403, code: 'model_not_allowed', param: 'model' }),
    );
    expect(() => authorizeRoute(keyFor(null, { direct: false }), named('support-drafts'))).not.toThrow();
  });
});
