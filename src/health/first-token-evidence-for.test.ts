import { describe, expect, it } from 'vitest';
import { deploymentKey } from '../core/deployment-key.js';
import { firstTokenEvidenceFor } from './first-token-evidence-for.js';
import { LatencyTracker } from './latency-tracker.js';

/** A process that has measured `measured` (connection, model) 30 times each, and a registry that knows them. */
function stateWith(measured: readonly { connection: string; model: string }[]) {
  const latency = new LatencyTracker(() => 0);
  for (const deployment of measured) {
    for (let index = 0; index < 30; index++) latency.observe(deploymentKey(deployment.connection, deployment.model), { latencyMs: 400, firstToken: { firstTokenMs: 400, inputTokens: 100 } });
  }
  const byKey = new Map(measured.map((deployment) => [deploymentKey(deployment.connection, deployment.model), deployment]));
  return { registry: { find: (key: string) => byKey.get(key) as never }, latency };
}

describe('firstTokenEvidenceFor', () => {
  it("times Claude on one home by another home's first tokens as the same model: Anthropic, Bedrock and Vertex spellings alike", () => {
    const homes = [
      { connection: 'anthropic', model: 'claude-sonnet-4-5-20250929' },
      { connection: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
      { connection: 'vertex', model: 'claude-sonnet-4-5@20250929' },
    ];
    for (const measured of homes) {
      for (const target of homes.filter((home) => home !== measured)) {
        const evidence = firstTokenEvidenceFor(stateWith([measured]), target, () => [], false);
        expect(evidence?.source, `${target.connection} borrowing from ${measured.connection}`).toBe('same_model');
      }
    }
  });

  it('does not borrow from another Claude model on another home', () => {
    const state = stateWith([{ connection: 'anthropic', model: 'claude-haiku-4-5-20251001' }]);
    expect(firstTokenEvidenceFor(state, { connection: 'vertex', model: 'claude-sonnet-4-5@20250929' }, () => [], false)).toBeUndefined();
  });
});
