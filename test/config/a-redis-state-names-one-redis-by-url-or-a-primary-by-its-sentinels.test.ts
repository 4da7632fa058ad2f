import { expect, it } from 'vitest';
import { knownSecrets } from '../../src/config/known-secrets.js';
import { parseConfig } from '../../src/config/parse-config.js';
import { issuesOf, withState } from './state-config.js';

it('takes sentinels with the master they monitor, and a password from the environment', () => {
  const parsed = parseConfig(withState('{ kind: redis, sentinels: ["10.0.0.5:26379", "[::1]:26380"], master: switchyard, password: "${env:REDIS_PASSWORD}" }'), {
    REDIS_PASSWORD: 'hunter2-redis',
  });
  expect(parsed.issues).toEqual([]);
  expect(parsed.config?.state).toEqual({ kind: 'redis', sentinels: ['10.0.0.5:26379', '[::1]:26380'], master: 'switchyard', password: 'hunter2-redis', key_prefix: 'switchyard:' });
});

it('takes a password beside a url without one, as well as in its userinfo', () => {
  expect(issuesOf('{ kind: redis, url: "redis://10.0.0.5:6379", password: s3cret-pass }')).toEqual([]);
  expect(issuesOf('{ kind: redis, url: "redis://:s3cret-pass@10.0.0.5:6379" }')).toEqual([]);
  // Either way the password is a secret that no log line, record or error body may show.
  for (const state of ['{ kind: redis, url: "redis://10.0.0.5:6379", password: s3cret-pass }', '{ kind: redis, url: "redis://app:s3cret%2Dpass@10.0.0.5:6379" }']) {
    expect(knownSecrets(parseConfig(withState(state), {}).config!)).toContain('s3cret-pass');
  }
});

it('refuses anything but exactly one of url and sentinels (with master), naming the field', () => {
  expect(issuesOf('{ kind: redis }')).toEqual(['state: needs url (one Redis) or sentinels with master (Redis Sentinel) (got {"kind":"redis"}) (line 5)']);
  expect(issuesOf('{ kind: redis, url: "redis://10.0.0.5:6379", sentinels: ["10.0.0.5:26379"], master: m }')).toEqual([
    'state.sentinels: give url (one Redis) or sentinels (Redis Sentinel), not both (got ["10.0.0.5:26379"]) (line 5)',
  ]);
  expect(issuesOf('{ kind: redis, sentinels: ["10.0.0.5:26379"] }')).toEqual(['state.master: required with sentinels: the name the sentinels monitor the primary under (line 5)']);
  expect(issuesOf('{ kind: redis, url: "redis://10.0.0.5:6379", master: m }')).toEqual(['state.master: only with sentinels (got "m") (line 5)']);
  expect(issuesOf('{ kind: redis, sentinels: ["10.0.0.5"], master: m }')).toEqual(['state.sentinels[0]: a sentinel as host:port (got "10.0.0.5") (line 5)']);
  expect(issuesOf('{ kind: redis, sentinels: [], master: m }')).toEqual([expect.stringMatching(/^state\.sentinels: .*\(line 5\)$/)]);
});

it('never shows the password, the one beside a url that holds one either', () => {
  const issues = issuesOf('{ kind: redis, url: "redis://:one-pass@10.0.0.5:6379", password: "${env:REDIS_PASSWORD}" }', { REDIS_PASSWORD: 'two-pass' });
  expect(issues).toEqual(['state.password: the url holds a password already: give it in one place (not shown: a secret) (line 5)']);
  const wrongType = issuesOf('{ kind: redis, sentinels: ["10.0.0.5:26379"], master: m, password: 12345678 }');
  expect(wrongType).toEqual(['state.password: Invalid input: expected string, received number (not shown: a secret) (line 5)']);
});
