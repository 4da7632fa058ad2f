import { describe, expect, it } from 'vitest';
import { configChanges, SECRET_VALUE } from './config-changes.js';
import { parseConfig } from './parse-config.js';
import type { Config } from './schema.js';

function config(yaml: string): Config {
  const parsed = parseConfig(yaml, {});
  if (!parsed.config) throw new Error(JSON.stringify(parsed.issues));
  return parsed.config;
}

const BASE = `
admin: { token: first-admin-token }
connections:
  openai: { provider: openai, api_key: sk-first-provider-key }
routes:
  support:
    targets: [{ connection: openai, model: gpt-4o }]
`;

describe('configChanges', () => {
  it('is undefined for a file saved unchanged', () => {
    expect(configChanges(config(BASE), config(BASE))).toBeUndefined();
  });

  it('names each changed, added and removed leaf by its path, with its values on either side', () => {
    const next = config(`
admin: { token: first-admin-token }
connections:
  openai: { provider: openai, api_key: sk-first-provider-key }
routes:
  support:
    retries: 2
    targets: [{ connection: openai, model: gpt-4o-mini }]
  "gpt-4.1":
    targets: [{ connection: openai, model: gpt-4.1 }]
drills: { interval_s: 0 }
`);
    const changes = configChanges(config(BASE), next)!;
    expect(changes.before).toEqual({ 'routes.support.retries': 1, 'routes.support.targets[0].model': 'gpt-4o', 'drills.interval_s': 86_400 });
    expect(changes.after).toMatchObject({
      'routes.support.retries': 2,
      'routes.support.targets[0].model': 'gpt-4o-mini',
      'routes["gpt-4.1"].targets[0].model': 'gpt-4.1',
      'routes["gpt-4.1"].targets[0].connection': 'openai',
      'drills.interval_s': 0,
    });
    // A route's defaults are leaves of the new route too.
    expect(changes.after['routes["gpt-4.1"].retries']).toBe(1);
    expect(Object.keys(changes.before)).not.toContain('routes["gpt-4.1"].retries');
  });

  it('shows a secret-bearing value only by its path: tokens, provider keys, passwords in URLs, webhooks, and any value holding a known secret', () => {
    const next = config(`
admin: { token: second-admin-token }
connections:
  openai: { provider: openai, api_key: sk-second-provider-key }
  compatible: { provider: openai-compatible, base_url: "https://user:hunter2@llm.internal/v1", api_key: other-key }
alerts: { webhook_url: "https://hooks.example.com/services/T000/B000/XXXX" }
store: { kind: postgres, url: "postgres://switchyard:pg-password@127.0.0.1:5432/switchyard" }
routes:
  support:
    targets: [{ connection: openai, model: gpt-4o }]
`);
    const changes = configChanges(config(BASE), next)!;
    expect(changes.before).toMatchObject({ 'admin.token': SECRET_VALUE, 'connections.openai.api_key': SECRET_VALUE });
    expect(changes.after).toMatchObject({
      'admin.token': SECRET_VALUE,
      'connections.openai.api_key': SECRET_VALUE,
      'connections.compatible.api_key': SECRET_VALUE,
      'connections.compatible.base_url': SECRET_VALUE,
      'alerts.webhook_url': SECRET_VALUE,
      'store.url': SECRET_VALUE,
      'store.kind': 'postgres',
    });
    const text = JSON.stringify(changes);
    for (const secret of ['first-admin-token', 'second-admin-token', 'sk-first-provider-key', 'sk-second-provider-key', 'hunter2', 'other-key', 'T000/B000/XXXX', 'pg-password']) {
      expect(text).not.toContain(secret);
    }
  });
});
