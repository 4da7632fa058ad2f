import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import type { OutCause } from '../health/health-door.js';
import { resolveRoute } from '../routing/resolve-route.js';
import { skippedTargetsOf, type Skip } from './planned-skips.js';

const config = configSchema.parse({
  connections: { east: { provider: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1', api_key: 'key-east' } },
  routes: { chat: { targets: [{ connection: 'east', model: 'a' }] } },
});
const target = resolveRoute(config, 'chat').targets[0]!;
const cause = (structural?: string, ejectedBy?: OutCause['ejectedBy']): OutCause => ({ structural, ejectedBy });
const skip = (reason: Skip['reason'], outCause: OutCause | undefined): Skip => ({ target, reason, untilMs: 1_000, cause: outCause });

describe('skippedTargetsOf', () => {
  it('names the failure each skip stands for: cooling a rate limit, an ejection the kind that ejected it, a structural fault its cause', () => {
    const kinds = skippedTargetsOf([
      skip('cooling', cause()),
      skip('ejected', cause(undefined, 'timeout')),
      // An ejection shared by a replica that did not say why: a breaker opens on transient faults.
      skip('ejected', cause()),
      skip('structural', cause('credential')),
      skip('cooling', cause('quota_exhausted')),
      skip('structural', cause('persistent_429')),
      skip('context_window', undefined),
      skip('busy', undefined),
    ])!.map((skipped) => [skipped.reason, skipped.kind]);
    expect(kinds).toEqual([
      ['cooling', 'rate_limit'],
      ['ejected', 'timeout'],
      ['ejected', 'server_error'],
      ['structural', 'credential'],
      ['cooling', 'quota_exhausted'],
      ['structural', 'rate_limit'],
      ['context_window', 'context_length'],
      ['busy', undefined],
    ]);
  });

  it('keeps the structural cause as health named it, for the final error to say', () => {
    expect(skippedTargetsOf([skip('structural', cause('persistent_429'))])).toEqual([
      { connection: 'east', model: 'a', reason: 'structural', cause: 'persistent_429', kind: 'rate_limit', untilMs: 1_000 },
    ]);
  });
});
