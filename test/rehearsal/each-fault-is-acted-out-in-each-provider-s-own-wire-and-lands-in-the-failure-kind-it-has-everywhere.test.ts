import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { serviceAccountKeyJson } from '../../src/mock/service-account-key.js';
import type { RehearsalDocument } from '../../src/rehearsal/rehearsal-document.js';
import { runCli } from '../support/cli-process.js';

const REHEARSAL_TIMEOUT_MS = 180_000;
/** Port 9 (discard): nothing listens there, so a call to a configured endpoint would be a connection failure, not the fault. */
const NOWHERE = 'http://127.0.0.1:9';
const directory = mkdtempSync(join(tmpdir(), 'switchyard-rehearse-wires-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const ROUTES = ['openai', 'anthropic', 'gemini', 'bedrock', 'vertex-claude', 'vertex-gemini'] as const;

/**
 * What the first attempt of each route got, as `kind http_status error_type`: the same kind
 * everywhere (the one policy table decides), in each provider's own status and error names —
 * Vertex's platform answering in google.rpc form for both publishers, its Claude model layer in
 * Anthropic's.
 */
const EXPECTED: Record<string, Record<(typeof ROUTES)[number], string>> = {
  rate_limit_short: {
    openai: 'rate_limit 429 rate_limit_exceeded',
    anthropic: 'rate_limit 429 rate_limit_error',
    gemini: 'rate_limit 429 RESOURCE_EXHAUSTED',
    bedrock: 'rate_limit 429 ThrottlingException',
    'vertex-claude': 'rate_limit 429 RESOURCE_EXHAUSTED',
    'vertex-gemini': 'rate_limit 429 RESOURCE_EXHAUSTED',
  },
  overloaded: {
    openai: 'server_error 503 server_error',
    anthropic: 'server_error 529 overloaded_error',
    gemini: 'server_error 503 UNAVAILABLE',
    bedrock: 'server_error 503 ServiceUnavailableException',
    'vertex-claude': 'server_error 529 overloaded_error',
    'vertex-gemini': 'server_error 503 UNAVAILABLE',
  },
  server_error: {
    openai: 'server_error 500 server_error',
    anthropic: 'server_error 500 api_error',
    gemini: 'server_error 500 INTERNAL',
    bedrock: 'server_error 500 InternalServerException',
    'vertex-claude': 'server_error 500 api_error',
    'vertex-gemini': 'server_error 500 INTERNAL',
  },
  quota: {
    openai: 'quota_exhausted 429 insufficient_quota',
    anthropic: 'quota_exhausted 429 enforced_spend_limit_reached',
    gemini: 'quota_exhausted 429 RESOURCE_EXHAUSTED',
    bedrock: 'quota_exhausted 429 ThrottlingException',
    'vertex-claude': 'quota_exhausted 429 RATE_LIMIT_EXCEEDED',
    'vertex-gemini': 'quota_exhausted 429 RATE_LIMIT_EXCEEDED',
  },
  credential: {
    openai: 'credential 401 invalid_api_key',
    anthropic: 'credential 401 authentication_error',
    // Gemini refuses a bad API key with a 400; Bedrock a bad signature with a 403.
    gemini: 'credential 400 API_KEY_INVALID',
    bedrock: 'credential 403 UnrecognizedClientException',
    'vertex-claude': 'credential 401 ACCESS_TOKEN_EXPIRED',
    'vertex-gemini': 'credential 401 ACCESS_TOKEN_EXPIRED',
  },
  context_length: {
    openai: 'context_length 400 context_length_exceeded',
    anthropic: 'context_length 400 invalid_request_error',
    gemini: 'context_length 400 INVALID_ARGUMENT',
    bedrock: 'context_length 400 ValidationException',
    'vertex-claude': 'context_length 400 invalid_request_error',
    'vertex-gemini': 'context_length 400 INVALID_ARGUMENT',
  },
  model_gone: {
    openai: 'not_found 404 model_not_found',
    anthropic: 'not_found 404 not_found_error',
    gemini: 'not_found 404 NOT_FOUND',
    bedrock: 'not_found 404 ResourceNotFoundException',
    'vertex-claude': 'not_found 404 NOT_FOUND',
    'vertex-gemini': 'not_found 404 NOT_FOUND',
  },
  // In a 200 stream, each in its own framing (Bedrock's binary event stream included).
  cut: Object.fromEntries(ROUTES.map((route) => [route, 'stream_interrupted 200 null'])) as Record<(typeof ROUTES)[number], string>,
  inband_error: Object.fromEntries(ROUTES.map((route) => [route, 'stream_interrupted 200 null'])) as Record<(typeof ROUTES)[number], string>,
  empty_answer: Object.fromEntries(ROUTES.map((route) => [route, 'empty_answer 200 null'])) as Record<(typeof ROUTES)[number], string>,
};

it(
  "acts out each fault in the target's own provider's wire — OpenAI, Anthropic, Gemini, Bedrock and Vertex for both publishers — and no configured endpoint is called",
  async () => {
    const configFile = join(directory, 'switchyard.yaml');
    writeFileSync(
      configFile,
      `
connections:
  openai: { provider: openai, api_key: sk-not-a-key, base_url: "${NOWHERE}/v1" }
  anthropic: { provider: anthropic, api_key: sk-ant-not-a-key, base_url: "${NOWHERE}" }
  gemini: { provider: gemini, api_key: not-a-key, base_url: "${NOWHERE}/v1beta" }
  bedrock: { provider: bedrock, region: us-east-1, aws_access_key_id: AKIANOTAKEY, aws_secret_access_key: not-a-secret, base_url: "${NOWHERE}" }
  vertex: { provider: vertex, project: my-project, location: us-east5, credentials_json: ${JSON.stringify(serviceAccountKeyJson(`${NOWHERE}/token`))} }
routes:
  openai: { targets: [{ connection: openai, model: gpt-4.1-mini }] }
  anthropic: { targets: [{ connection: anthropic, model: claude-sonnet-4-5 }] }
  gemini: { targets: [{ connection: gemini, model: gemini-2.5-flash }] }
  bedrock: { targets: [{ connection: bedrock, model: "anthropic.claude-sonnet-4-5-20250929-v1:0" }] }
  vertex-claude: { targets: [{ connection: vertex, model: "claude-sonnet-4-5@20250929" }] }
  vertex-gemini: { targets: [{ connection: vertex, model: gemini-2.5-flash }] }
`,
    );
    const faults = Object.keys(EXPECTED);
    const run = await runCli(['rehearse', '--config', configFile, '--fault', faults.join(','), '--json'], { timeoutMs: REHEARSAL_TIMEOUT_MS });
    expect(run.code, run.stderr).toBe(1);
    const { scenarios } = JSON.parse(run.stdout) as RehearsalDocument;
    expect(scenarios).toHaveLength(ROUTES.length * faults.length);
    const seen = Object.fromEntries(
      faults.map((fault) => [
        fault,
        Object.fromEntries(
          ROUTES.map((route) => {
            const first = scenarios.find((scenario) => scenario.route === route && scenario.fault === fault)!.calls[0]!.attempts[0]!;
            return [route, `${first.kind} ${first.http_status} ${first.error_type}`];
          }),
        ),
      ]),
    );
    expect(seen).toEqual(EXPECTED);
  },
  REHEARSAL_TIMEOUT_MS + 10_000,
);
