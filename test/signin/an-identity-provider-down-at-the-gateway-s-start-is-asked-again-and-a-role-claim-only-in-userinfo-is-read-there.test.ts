import { afterAll, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { IDP_CLIENT_ID, IDP_CLIENT_SECRET, startIdentityProvider, type TestIdentityProvider } from '../support/identity-provider.js';
import { CookieJar, send, signInOverHttp } from '../support/sign-in-over-http.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';

let gateway: TestGateway | undefined;
let identityProvider: TestIdentityProvider | undefined;
afterAll(async () => {
  await gateway?.close();
  await identityProvider?.close();
});

it('the gateway starts while its identity provider is down, refuses sign-in with a page until it is up, then signs people in with the groups userinfo sends', async () => {
  const port = await freePort();
  gateway = await startGateway(`
admin:
  oidc:
    issuer: http://127.0.0.1:${port}
    client_id: ${IDP_CLIENT_ID}
    client_secret: ${IDP_CLIENT_SECRET}
    roles: { oncall: auditor }
connections:
  mock: { provider: mock }
`);
  expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  const down = await send(`${gateway.url}/ui/login/oidc`, new CookieJar());
  expect(down.status).toBe(502);
  expect(await down.text()).toContain('The identity provider cannot be reached');

  // Its ID tokens hold no groups (the claims of the scopes go to userinfo only).
  identityProvider = await startIdentityProvider({ port, groupsIn: 'userinfo', people: { ana: { name: 'Ana Oncall', email: 'ana@corp.test', groups: ['oncall'] } } });
  identityProvider.allowCallback(`${gateway.url}/ui/login/oidc/callback`);
  const jar = new CookieJar();
  const { callback } = await signInOverHttp(`${gateway.url}/ui/login/oidc`, 'ana', jar);
  expect(callback.status).toBe(303);
  expect(await (await send(`${gateway.url}/admin/me`, jar)).json()).toMatchObject({ kind: 'user', id: 'ana', name: 'Ana Oncall', role: 'auditor' });
});
