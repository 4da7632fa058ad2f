import { GatewayError } from '../errors/gateway-error.js';
import type { NewKey } from '../keys/virtual-key.js';
import { microsToUsd } from '../metering/money.js';
import type { Team } from './team.js';

/**
 * An exploration key as its team's policy makes it (SPEC §15): it expires at most `max_ttl_s` from
 * now (exactly then when none was asked), its limits and budget are at most the policy's, and what
 * the caller left out it gets from the policy. A key asked beyond the policy is a 400 naming the field.
 */
export function withinExplorationPolicy(key: NewKey, team: Team, nowMs: number): NewKey {
  const policy = team.exploration;
  const latestMs = nowMs + policy.maxTtlS * 1000;
  if (key.expiresAt !== null && Date.parse(key.expiresAt) > latestMs) {
    throw beyondPolicy('expires_at', `team ${team.name} lets an exploration key live at most ${policy.maxTtlS} s (until ${new Date(latestMs).toISOString()})`);
  }
  for (const limit of ['rpm', 'tpm'] as const) {
    const most = policy[limit];
    const asked = key[limit];
    if (most !== null && asked !== null && asked > most) throw beyondPolicy(`limits.${limit}`, `team ${team.name}'s exploration keys have at most ${most} ${limit}`);
  }
  if (policy.budget !== null && key.budget !== null) {
    if (key.budget.period !== policy.budget.period) {
      throw beyondPolicy('budget.period', `team ${team.name}'s exploration keys have a budget per ${policy.budget.period}`);
    }
    if (key.budget.usdMicros > policy.budget.usdMicros) {
      throw beyondPolicy('budget.usd', `team ${team.name}'s exploration keys have a budget of at most ${microsToUsd(policy.budget.usdMicros)} USD per ${policy.budget.period}`);
    }
  }
  return {
    ...key,
    expiresAt: key.expiresAt ?? new Date(latestMs).toISOString(),
    rpm: key.rpm ?? policy.rpm,
    tpm: key.tpm ?? policy.tpm,
    budget: key.budget ?? policy.budget,
  };
}

function beyondPolicy(param: string, why: string): GatewayError {
  return new GatewayError(`Invalid request: ${param}: beyond the exploration policy: ${why}.`, { status: 400, code: 'invalid_request_error', param });
}
