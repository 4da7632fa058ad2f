import { it } from 'vitest';
import { revocationCheck } from './fleet-checks.js';
import { fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
${revocationCheck.route('r')}`,
});

it.skipIf(!fleet.available)('a key revoked on replica A is refused by replica B within 1 s, without reaching the provider', () => revocationCheck.run(fleet, 'r'), 60_000);
