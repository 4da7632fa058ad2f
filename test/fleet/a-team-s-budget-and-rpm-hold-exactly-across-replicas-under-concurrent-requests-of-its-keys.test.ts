import { it } from 'vitest';
import { teamBudgetCheck, teamRpmCheck } from './fleet-checks.js';
import { fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
${teamBudgetCheck.route('priced')}
${teamRpmCheck.route('limited')}`,
});

it.skipIf(!fleet.available)(
  "twenty concurrent requests over two replicas admit at most two against a team's budget of two, and at most two against a key's within its team; no spend past either",
  () => teamBudgetCheck.run(fleet, 'priced'),
  60_000,
);
it.skipIf(!fleet.available)("a team's rpm 4: eight requests of two keys alternating between the replicas admit four", () => teamRpmCheck.run(fleet, 'limited'), 60_000);
