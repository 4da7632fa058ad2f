import { describe, expect, it } from 'vitest';
import type { AdminOidcConfig } from '../config/admin-oidc-schema.js';
import { mapRoleClaim, roleClaimValues } from './map-role-claim.js';

const TEAMS = [
  { id: 'team_pay', name: 'payments' },
  { id: 'team_srch', name: 'search' },
];
const findTeam = async (idOrName: string) => TEAMS.find((team) => team.id === idOrName || team.name === idOrName);

const ROLES: AdminOidcConfig['roles'] = {
  platform: 'admin',
  oncall: 'auditor',
  'payments-leads': { team_admin: 'payments' },
  'payments-devs': { member: 'team_pay' },
  'search-devs': { member: 'search' },
  'ghost-team': { team_admin: 'no-such-team' },
};

describe('the role claim', () => {
  it('is read as a list of strings, or one string, and is absent when the claims lack it', () => {
    expect(roleClaimValues({ groups: ['a', 'b'] }, 'groups')).toEqual(['a', 'b']);
    expect(roleClaimValues({ groups: 'a' }, 'groups')).toEqual(['a']);
    expect(roleClaimValues({ groups: ['a', 7, null, 'b'] }, 'groups')).toEqual(['a', 'b']);
    expect(roleClaimValues({ roles: ['a'] }, 'groups')).toBeUndefined();
    expect(roleClaimValues({ groups: { a: true } }, 'groups')).toBeUndefined();
    // A claim name that is a property of every object is no claim.
    expect(roleClaimValues({}, 'constructor')).toBeUndefined();
  });
});

describe('mapping the role claim through admin.oidc.roles', () => {
  it('gives admin or auditor over every team, the stronger when both are mapped', async () => {
    expect(await mapRoleClaim(['oncall'], ROLES, findTeam)).toEqual({ global: 'auditor', grants: [] });
    expect(await mapRoleClaim(['oncall', 'platform'], ROLES, findTeam)).toEqual({ global: 'admin', grants: [] });
    expect(await mapRoleClaim(['platform', 'oncall'], ROLES, findTeam)).toEqual({ global: 'admin', grants: [] });
  });

  it('gives a team role in the team named by its name or its id, one grant per value', async () => {
    expect(await mapRoleClaim(['payments-leads', 'search-devs', 'payments-devs'], ROLES, findTeam)).toEqual({
      global: null,
      grants: [
        { team: 'team_pay', role: 'team_admin' },
        { team: 'team_srch', role: 'member' },
        { team: 'team_pay', role: 'member' },
      ],
    });
    expect(await mapRoleClaim(['oncall', 'search-devs', 'search-devs'], ROLES, findTeam)).toEqual({ global: 'auditor', grants: [{ team: 'team_srch', role: 'member' }] });
  });

  it('maps a value naming no mapping, or a team the store does not have, to nothing', async () => {
    expect(await mapRoleClaim(['marketing', 'ghost-team', 'constructor', '__proto__', 'toString'], ROLES, findTeam)).toEqual({ global: null, grants: [] });
    expect(await mapRoleClaim([], ROLES, findTeam)).toEqual({ global: null, grants: [] });
  });
});
