import { describe, expect, it } from 'vitest';
import { configSchema } from './schema.js';
import { keysAllowedAt } from './keys-allowed-at.js';

describe('keysAllowedAt', () => {
  it('finds the keys of a nested mapping through records, arrays and defaults', () => {
    const root = { routes: { r: { targets: [{ connection: 'a' }], timeouts: {} } } };
    expect(keysAllowedAt(configSchema, ['server'], root)).toContain('port');
    expect(keysAllowedAt(configSchema, ['routes', 'r'], root)).toContain('timeouts');
    expect(keysAllowedAt(configSchema, ['routes', 'r', 'targets', 0], root)).toEqual(expect.arrayContaining(['connection', 'model', 'model_change']));
    expect(keysAllowedAt(configSchema, ['routes', 'r', 'timeouts'], root)).toContain('first_token_ms');
  });

  it('takes the branch of a union that the file chose', () => {
    const sqlite = keysAllowedAt(configSchema, ['store'], { store: { kind: 'sqlite' } });
    const postgres = keysAllowedAt(configSchema, ['store'], { store: { kind: 'postgres' } });
    expect([sqlite.includes('path'), sqlite.includes('url')]).toEqual([true, false]);
    expect([postgres.includes('path'), postgres.includes('url')]).toEqual([false, true]);
  });

  it('lists the keys of a record keyed by an enum', () => {
    expect(keysAllowedAt(configSchema, ['routes', 'r', 'on'], {})).toEqual(expect.arrayContaining(['rate_limit', 'server_error']));
  });

  it('knows no keys where the schema has no mapping', () => {
    expect(keysAllowedAt(configSchema, ['routes', 'r', 'retries'], {})).toEqual([]);
  });
});
