import { expect, it } from 'vitest';
import { budgetCheck, ejectionCheck, revocationCheck, rpmCheck, teamBudgetCheck, teamRpmCheck } from './fleet-checks.js';
import { fleetForThisFile, mockConnectionYaml, stateOf } from './fleet-helpers.js';

// The checks the fleet passes on one Redis, on a 3-primary Redis Cluster: each key's and
// deployment's state lives on whichever primary its hash tag lands on (a key of a team's, on its
// team's, with the team's), pub/sub crosses nodes.
const fleet = fleetForThisFile({
  onCluster: true,
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
${rpmCheck.route('limited')}
${budgetCheck.route('priced')}
${ejectionCheck.route('failing')}
${revocationCheck.route('revoked')}
${teamBudgetCheck.route('team-priced')}
${teamRpmCheck.route('team-limited')}`,
});

it.skipIf(!fleet.available)('both replicas share state on the cluster', async () => {
  for (const replica of fleet.fleet().replicas) expect(await stateOf(replica.url)).toBe('shared');
});
it.skipIf(!fleet.available)('rpm 4: eight requests alternating between the replicas admit four', () => rpmCheck.run(fleet, 'limited'), 60_000);
it.skipIf(!fleet.available)('ten concurrent requests over both replicas against a budget of two requests admit at most two, the spend within it', () => budgetCheck.run(fleet, 'priced'), 60_000);
it.skipIf(!fleet.available)('a deployment ejected by one replica is skipped by the other within 1 s', () => ejectionCheck.run(fleet, 'failing'), 60_000);
it.skipIf(!fleet.available)('a key revoked on one replica is refused by the other within 1 s', () => revocationCheck.run(fleet, 'revoked'), 60_000);
// A key of a team and its team decided in one script: a CROSSSLOT refusal would leave each replica
// to its own gate, and the pair would admit more than the team's budget or minute holds.
it.skipIf(!fleet.available)("twenty concurrent requests of a team's keys over both replicas admit at most two against its budget of two", () => teamBudgetCheck.run(fleet, 'team-priced'), 60_000);
it.skipIf(!fleet.available)("a team's rpm 4: eight requests of two keys alternating between the replicas admit four", () => teamRpmCheck.run(fleet, 'team-limited'), 60_000);
it.skipIf(!fleet.available)('both replicas still share state after the team checks', async () => {
  for (const replica of fleet.fleet().replicas) expect(await stateOf(replica.url)).toBe('shared');
});
