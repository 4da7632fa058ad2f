import { afterAll, beforeAll, expect, it } from 'vitest';
import { postChat } from '../../support/start-gateway.js';
import { fetchRecord, hello } from '../scenario-helpers.js';
import { startVertexGateway, type VertexGateway } from './vertex-gateway.js';

/**
 * Each fault Vertex answers with — the platform's google.rpc errors, and from Claude's publisher
 * Anthropic's own bodies — lands in the failure kind the same fault has on Anthropic's and Gemini's
 * own APIs, so the one policy table decides what happens next (docs/providers.md, error mapping).
 * Every route fails over to a standby, so each fault is seen in the record of a served request.
 */
const FAULTS: readonly [directive: string, claudeKind: string, geminiKind: string][] = [
  ['status=429', 'rate_limit', 'rate_limit'],
  // The hint rides in a RetryInfo detail (the platform) or retry-after (Claude's model layer): both reach the record.
  ['status=429&retry_after=7', 'rate_limit', 'rate_limit'],
  ['error=insufficient_quota', 'quota_exhausted', 'quota_exhausted'],
  ['status=503', 'server_error', 'server_error'],
  ['status=500', 'server_error', 'server_error'],
  ['status=529', 'server_error', 'server_error'],
  ['status=401', 'credential', 'credential'],
  ['status=404', 'not_found', 'not_found'],
  ['error=context_length', 'context_length', 'context_length'],
  ['error=content_policy', 'moderation', 'moderation'],
];
const MODELS = { claude: 'claude-sonnet-4-5@20250929', gemini: 'gemini-2.5-flash' } as const;
const routeName = (publisher: string, index: number) => `${publisher}-fault-${index}`;

let vx: VertexGateway;

beforeAll(async () => {
  // A connection per route: a credential fault takes its whole connection out.
  const connections = FAULTS.flatMap((_, index) => Object.keys(MODELS).map((publisher) => `  vx-${routeName(publisher, index)}: { provider: vertex, project: switchyard-test, location: us-east5, base_url: "MOCK_ROOT/v1", credentials_json: "\${env:VERTEX_SA_KEY}" }`));
  const routes = FAULTS.flatMap(([directive], index) =>
    Object.entries(MODELS).flatMap(([publisher, model]) => [
      `  ${routeName(publisher, index)}:`,
      '    retries: 0',
      '    targets:',
      `      - { connection: vx-${routeName(publisher, index)}, model: "${model}?${directive}", model_change: false }`,
      '      - { connection: standby, model: standby }',
    ]),
  );
  vx = await startVertexGateway(['connections:', '  standby: { provider: mock, dialect: openai }', ...connections, 'routes:', ...routes].join('\n'), { mockRootPlaceholder: 'MOCK_ROOT' });
});
afterAll(() => vx.close());

for (const [index, [directive, claudeKind, geminiKind]] of FAULTS.entries()) {
  for (const [publisher, kind] of [
    ['claude', claudeKind],
    ['gemini', geminiKind],
  ] as const) {
    it(`${publisher} on Vertex, ${directive}: the attempt is ${kind}`, async () => {
      const response = await postChat(vx.gateway.url, { model: routeName(publisher, index), messages: hello });
      const record = await fetchRecord(vx.gateway.url, response.headers.get('x-request-id')!);
      const retryAfter = /retry_after=(\d+)/.exec(directive);
      expect(record.attempts[0], JSON.stringify(record.attempts)).toMatchObject({ provider: 'vertex', kind, ...(retryAfter ? { retry_after_ms: Number(retryAfter[1]) * 1000 } : {}) });
    });
  }
}
