import { it } from 'vitest';
import { ejectionCheck } from './fleet-checks.js';
import { fleetForThisFile, mockConnectionYaml } from './fleet-helpers.js';

const fleet = fleetForThisFile({
  yaml: (mockUrl) => `${mockConnectionYaml(mockUrl)}
routes:
${ejectionCheck.route('r')}`,
});

it.skipIf(!fleet.available)('replica A ejects a failing deployment and replica B skips it within 1 s, without sending it a request', () => ejectionCheck.run(fleet, 'r'), 60_000);
