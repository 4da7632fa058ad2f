import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { formatIssue } from '../../src/config/config-issue.js';
import { parseConfig } from '../../src/config/parse-config.js';
import { adapterFor, baseUrlFor } from '../../src/providers/registry.js';
import { vertexClaudeAdapter, vertexGeminiAdapter } from '../../src/providers/vertex/adapter.js';

const dir = mkdtempSync(join(tmpdir(), 'vertex-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = JSON.stringify({
  type: 'service_account',
  client_email: 'gateway@my-project.iam.gserviceaccount.com',
  private_key: '-----BEGIN PRIVATE KEY-----\nMIIEv-not-a-real-key\n-----END PRIVATE KEY-----\n',
  token_uri: 'https://oauth2.googleapis.com/token',
});

function config(connection: string): string {
  return `connections:\n  vx: { provider: vertex${connection} }\nroutes:\n  r: { targets: [{ connection: vx, model: claude-sonnet-4-5@20250929 }] }\n`;
}

const issuesOf = (connection: string, env: NodeJS.ProcessEnv = {}) => parseConfig(config(connection), env).issues.map(formatIssue);

it('needs project and location', () => {
  expect(issuesOf('')).toEqual([
    'connections.vx.project: required for provider vertex (the Google Cloud project its requests name) (line 2)',
    'connections.vx.location: required for provider vertex (a region such as us-east5, or global) (line 2)',
  ]);
  expect(issuesOf(', project: my-project, location: us-east5')).toEqual([]);
  expect(issuesOf(', project: my-project, location: global')).toEqual([]);
});

it('takes a service-account key file that is there and is a key, naming credentials_file otherwise', () => {
  const good = join(dir, 'key.json');
  writeFileSync(good, KEY);
  const notAKey = join(dir, 'user.json');
  writeFileSync(notAKey, JSON.stringify({ type: 'authorized_user', refresh_token: '1//secret' }));
  const withFile = (file: string) => issuesOf(`, project: my-project, location: us-east5, credentials_file: ${file}`);
  expect(withFile(good)).toEqual([]);
  expect(withFile(join(dir, 'missing.json'))).toEqual([`connections.vx.credentials_file: cannot read ${join(dir, 'missing.json')} (ENOENT) (line 2)`]);
  expect(withFile(notAKey)).toEqual([`connections.vx.credentials_file: ${notAKey} has type "authorized_user", not "service_account" (line 2)`]);
});

it('takes the key from the environment as credentials_json, never quoting it when it is wrong', () => {
  const withJson = (key: string) => issuesOf(', project: my-project, location: us-east5, credentials_json: "${env:VERTEX_SA_KEY}"', { VERTEX_SA_KEY: key });
  expect(withJson(KEY)).toEqual([]);
  const issues = withJson('{"type":"service_account","client_email":"a@b","private_key":"oops-secret"}');
  expect(issues).toEqual(['connections.vx.credentials_json: has no private_key in PEM form (line 2)']);
  expect(issues.join()).not.toContain('oops-secret');
});

it('is refused keys of other providers, and other providers its keys', () => {
  expect(issuesOf(', project: my-project, location: us-east5, region: us-east-1')).toEqual(['connections.vx.region: only bedrock connections take region (line 2)']);
  expect(parseConfig('connections:\n  a: { provider: anthropic, api_key: k, project: my-project }\n', {}).issues.map(formatIssue)).toEqual([
    'connections.a.project: only vertex connections take project (line 2)',
  ]);
});

it('sends requests under its project and location, on the location’s host or the global one, and picks the adapter by model', () => {
  const connectionOf = (text: string) => parseConfig(config(text), {}).config!.connections.vx!;
  expect(baseUrlFor(connectionOf(', project: my-project, location: us-east5'), undefined)).toBe(
    'https://us-east5-aiplatform.googleapis.com/v1/projects/my-project/locations/us-east5',
  );
  expect(baseUrlFor(connectionOf(', project: my-project, location: global'), undefined)).toBe('https://aiplatform.googleapis.com/v1/projects/my-project/locations/global');
  expect(baseUrlFor(connectionOf(', project: my-project, location: us-east5, base_url: "http://127.0.0.1:9/v1/"'), undefined)).toBe(
    'http://127.0.0.1:9/v1/projects/my-project/locations/us-east5',
  );
  const vertex = connectionOf(', project: my-project, location: us-east5');
  expect(adapterFor(vertex, 'claude-sonnet-4-5@20250929')).toBe(vertexClaudeAdapter);
  expect(adapterFor(vertex, 'gemini-2.5-pro')).toBe(vertexGeminiAdapter);
});
