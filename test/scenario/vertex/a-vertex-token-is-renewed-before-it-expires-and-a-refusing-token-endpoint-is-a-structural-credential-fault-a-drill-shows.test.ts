import { afterEach, expect, it } from 'vitest';
import { postChat } from '../../support/start-gateway.js';
import { deploymentHealth } from '../health-helpers.js';
import { drill } from '../../drills/drill-helpers.js';
import { eventually, fetchRecord, hello } from '../scenario-helpers.js';
import { startVertexGateway, type VertexGateway } from './vertex-gateway.js';

/**
 * The access token of a Vertex connection's service-account key: renewed in the background before
 * it lapses, so callers keep being served without waiting for an exchange; and a key the token
 * endpoint refuses is the connection's `credential` fault — structural, failed over, named by a
 * drill — with no secret in what the caller, the record or the drill shows (docs/providers.md).
 */
let vx: VertexGateway | undefined;
afterEach(async () => {
  await vx?.close();
  vx = undefined;
});

it('a token that lives 4 s is exchanged again before it lapses, and the next request carries the new one', async () => {
  vx = await startVertexGateway(
    `
connections:
routes:
  vx: { targets: [{ connection: vertex, model: gemini-2.5-flash }] }
`,
    { tokenDirectives: '?expires_in=4' },
  );
  expect((await postChat(vx.gateway.url, { model: 'vx', messages: hello })).status).toBe(200);
  expect(vx.vertex.attempts.at(-1)!.headers.authorization).toBe('Bearer [token 1]');
  // Renewed off the request path: a second grant appears with no request sent meanwhile.
  await eventually(() => vx!.vertex.tokenGrants.length >= 2, 15_000, 'the token renewed in the background');
  expect(vx.vertex.attempts).toHaveLength(1);
  expect(vx.vertex.tokenGrants.map((grant) => grant.outcome)).toEqual(['issued', 'issued']);
  const response = await postChat(vx.gateway.url, { model: 'vx', messages: hello });
  expect(response.status).toBe(200);
  expect(vx.vertex.attempts.at(-1)!.headers.authorization).toBe('Bearer [token 2]');
}, 30_000);

it('a key its token endpoint refuses is a credential fault: the route fails over, the deployment is structural, and a drill names it', async () => {
  vx = await startVertexGateway(
    `
connections:
  standby: { provider: mock, dialect: anthropic }
routes:
  vx:
    targets:
      - { connection: vertex, model: "claude-sonnet-4-5@20250929" }
      - { connection: standby, model: claude-sonnet-4-5 }
`,
    { tokenDirectives: '?refuse=invalid_grant' },
  );
  const response = await postChat(vx.gateway.url, { model: 'vx', messages: hello });
  expect(response.status).toBe(200);
  expect(response.headers.get('x-switchyard-served-by')).toBe('standby/claude-sonnet-4-5');
  // Nothing reached Vertex: the attempt ended at the token exchange.
  expect(vx.vertex.attempts).toEqual([]);
  expect(vx.vertex.tokenGrants.map((grant) => grant.outcome)).toContain('invalid_grant');

  const record = await fetchRecord(vx.gateway.url, response.headers.get('x-request-id')!);
  expect(record.attempts[0]).toMatchObject({ connection: 'vertex', kind: 'credential' });
  expect(record.attempts[0]!.message).toMatch(/invalid_grant/);
  expect(await deploymentHealth(vx.gateway.url, 'vertex/claude-sonnet-4-5@20250929')).toMatchObject({ state: 'structural', structural_cause: 'credential' });

  const run = await drill(vx.gateway.url, 'vx');
  expect(run.steps.find((step) => step.step === 'target' && step.position === 1)).toMatchObject({ connection: 'vertex', result: 'credential', kind: 'credential' });
  expect(run.steps.find((step) => step.step === 'target' && step.position === 2)).toMatchObject({ result: 'ok' });

  // Neither the key nor its assertion in what anyone is shown.
  const shown = JSON.stringify([record, run, await response.text()]);
  expect(shown).not.toContain('PRIVATE KEY');
  expect(shown).not.toContain('eyJ');
}, 30_000);
