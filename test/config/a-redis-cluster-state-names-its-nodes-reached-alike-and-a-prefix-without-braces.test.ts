import { expect, it } from 'vitest';
import { knownSecrets } from '../../src/config/known-secrets.js';
import { parseConfig } from '../../src/config/parse-config.js';
import { issuesOf, withState } from './state-config.js';

it('takes node URLs, with the password in their userinfo or from the environment', () => {
  const parsed = parseConfig(withState('{ kind: redis-cluster, nodes: ["redis://10.0.0.5:7000", "redis://10.0.0.6:7000"], password: "${env:REDIS_PASSWORD}" }'), {
    REDIS_PASSWORD: 'hunter2-cluster',
  });
  expect(parsed.issues).toEqual([]);
  expect(parsed.config?.state).toEqual({ kind: 'redis-cluster', nodes: ['redis://10.0.0.5:7000', 'redis://10.0.0.6:7000'], password: 'hunter2-cluster', key_prefix: 'switchyard:' });
  expect(knownSecrets(parsed.config!)).toContain('hunter2-cluster');
  const inUrls = parseConfig(withState('{ kind: redis-cluster, nodes: ["rediss://app:s3cret%2Fpass@a.internal:7000", "rediss://app:s3cret%2Fpass@b.internal:7000"] }'), {});
  expect(inUrls.issues).toEqual([]);
  expect(knownSecrets(inUrls.config!)).toContain('s3cret/pass');
});

it('refuses what it cannot honour, naming the field and never showing a node URL', () => {
  expect(issuesOf('{ kind: redis-cluster }')).toEqual(['state.nodes: Invalid input: expected array, received undefined (line 5)']);
  expect(issuesOf('{ kind: redis-cluster, nodes: [] }')).toEqual(['state.nodes: at least one node of the cluster, as redis://host:port (not shown: a secret) (line 5)']);
  expect(issuesOf('{ kind: redis-cluster, nodes: ["10.0.0.5:7000"] }')).toEqual(['state.nodes[0]: a redis:// or rediss:// URL (not shown: a secret) (line 5)']);
  expect(issuesOf('{ kind: redis-cluster, nodes: ["redis://10.0.0.5:7000", "rediss://10.0.0.6:7000"] }')).toEqual([
    'state.nodes[1]: the same scheme as the first node: the cluster is reached with TLS (rediss://) or without, as a whole (not shown: a secret) (line 5)',
  ]);
  expect(issuesOf('{ kind: redis-cluster, nodes: ["redis://:one-pass@10.0.0.5:7000", "redis://:two-pass@10.0.0.6:7000"] }')).toEqual([
    'state.nodes[1]: the same user and password as the first node (or none): every node of a cluster takes the same (not shown: a secret) (line 5)',
  ]);
  expect(issuesOf('{ kind: redis-cluster, nodes: ["redis://10.0.0.5:7000/2"] }')).toEqual(['state.nodes[0]: a cluster has database 0 only: no /N after host:port (not shown: a secret) (line 5)']);
  expect(issuesOf('{ kind: redis-cluster, nodes: ["redis://:one-pass@10.0.0.5:7000"], password: two-pass }')).toEqual([
    'state.password: the node urls hold a password already: give it in one place (not shown: a secret) (line 5)',
  ]);
  expect(issuesOf('{ kind: redis-cluster, nodes: ["redis://10.0.0.5:7000"], key_prefix: "{app}:" }')).toEqual([
    'state.key_prefix: no { or } in a cluster\'s key prefix: the keys carry hash tags of their own (got "{app}:") (line 5)',
  ]);
  expect(issuesOf('{ kind: redis-cluster, url: "redis://10.0.0.5:7000" }')).toEqual([
    'state.nodes: Invalid input: expected array, received undefined (line 5)',
    'state.url: unknown key (allowed here: kind, nodes, password, key_prefix) (line 5)',
  ]);
});
