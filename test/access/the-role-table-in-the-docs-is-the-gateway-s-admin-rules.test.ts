import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ADMIN_RULES } from '../../src/access/admin-rules.js';
import { ROLES } from '../../src/core/actor.js';

/** The rows of the role table in docs/teams-and-access.md: endpoint → the roles ticked. */
function documentedRules(): Record<string, string[]> {
  const doc = readFileSync(join(process.cwd(), 'docs', 'teams-and-access.md'), 'utf8');
  const rows: Record<string, string[]> = {};
  for (const line of doc.split('\n')) {
    const cells = /^\| `([A-Z]+ \/admin\/[^`]*)` \|(.*)\|$/.exec(line);
    if (!cells) continue;
    const [endpoint, rest] = [cells[1]!, cells[2]!.split('|').map((cell) => cell.trim())];
    expect(rows[endpoint], `${endpoint} is in the table twice`).toBeUndefined();
    rows[endpoint] = ROLES.filter((_role, index) => rest[index] === '✓');
    expect(rest.slice(0, ROLES.length).every((cell) => cell === '✓' || cell === '—'), line).toBe(true);
  }
  return rows;
}

it('the role table in docs/teams-and-access.md ticks exactly the roles ADMIN_RULES lets through, for every endpoint', () => {
  // `admin` may do everything, whether or not a rule lists it.
  const rules = Object.fromEntries(Object.entries(ADMIN_RULES).map(([route, roles]) => [route, ROLES.filter((role) => role === 'admin' || roles.includes(role))]));
  expect(documentedRules()).toEqual(rules);
});
