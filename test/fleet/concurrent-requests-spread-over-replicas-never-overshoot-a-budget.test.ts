import { it } from 'vitest';
import { budgetCheck } from './fleet-checks.js';
import { fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  replicas: 3,
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
${budgetCheck.route('r')}`,
});

it.skipIf(!fleet.available)('ten concurrent requests over three replicas against a budget of two requests admit at most two, and the spend stays within the budget', () => budgetCheck.run(fleet, 'r'), 60_000);
