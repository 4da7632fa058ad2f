import { it } from 'vitest';
import { rpmCheck } from './fleet-checks.js';
import { fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
${rpmCheck.route('r')}`,
});

it.skipIf(!fleet.available)('rpm 4: eight requests alternating between two replicas admit four; the rest get 429 rate_limit_exceeded with retry-after', () => rpmCheck.run(fleet, 'r'), 60_000);
