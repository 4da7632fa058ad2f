import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { formatIssue } from '../../src/config/config-issue.js';
import { knownSecrets } from '../../src/config/known-secrets.js';
import { parseConfig } from '../../src/config/parse-config.js';

const SECRET = 'oidc-client-secret-9f3a1c77e2';

/** A config whose `admin.oidc` block is `lines` (indented under it), starting at line 3. */
const withOidc = (lines: string) => `admin:\n  oidc:\n${lines.replace(/^/gm, '    ')}\n`;
const issuesOf = (yaml: string, env: NodeJS.ProcessEnv = {}) => parseConfig(yaml, env).issues.map(formatIssue);

describe('admin.oidc', () => {
  it('takes the issuer, the client and the roles; scopes default to openid profile email and the role claim to groups', () => {
    const parsed = parseConfig(
      withOidc(`issuer: https://idp.corp.example/realms/main
client_id: switchyard
client_secret: "\${env:OIDC_SECRET}"
roles:
  platform: admin
  oncall: auditor
  payments-leads: { team_admin: payments }
  payments-devs: { member: team_0a1b }`),
      { OIDC_SECRET: SECRET },
    );
    expect(parsed.issues).toEqual([]);
    const oidc = parsed.config!.admin.oidc!;
    expect(oidc).toEqual({
      issuer: 'https://idp.corp.example/realms/main',
      client_id: 'switchyard',
      client_secret: SECRET,
      scopes: ['openid', 'profile', 'email'],
      role_claim: 'groups',
      roles: { platform: 'admin', oncall: 'auditor', 'payments-leads': { team_admin: 'payments' }, 'payments-devs': { member: 'team_0a1b' } },
    });
    // Redacted from logs, records and errors like every other secret of the config.
    expect(knownSecrets(parsed.config!).has(SECRET)).toBe(true);
  });

  it.each(['http://127.0.0.1:8080', 'http://localhost:8080/realms/dev', 'http://[::1]:9000'])('takes an http:// issuer on loopback (%s), where local and test identity providers run', (issuer) => {
    expect(issuesOf(withOidc(`issuer: ${issuer}\nclient_id: c\nclient_secret: ${SECRET}\nroles: { ops: admin }`))).toEqual([]);
  });

  it('refuses an http:// issuer anywhere else, saying why, at its line', () => {
    expect(issuesOf(withOidc(`client_id: c\nissuer: http://idp.corp.example\nclient_secret: ${SECRET}\nroles: { ops: admin }`))).toEqual([
      'admin.oidc.issuer: an http:// issuer is only allowed on loopback (127.0.0.1, ::1, localhost), not on idp.corp.example: the client secret and the tokens would cross the network unencrypted; use https:// (got "http://idp.corp.example") (line 4)',
    ]);
  });

  it('refuses a role that is none of the four, naming the claim value and its line', () => {
    const issues = issuesOf(
      withOidc(`issuer: https://idp.corp.example
client_id: c
client_secret: ${SECRET}
roles:
  platform: admin
  leads: { team_admin: 5 }
  owners: owner
  devs: { developer: payments }`),
    );
    const expected = 'expected admin, auditor, { team_admin: <team> } or { member: <team> }';
    expect(issues).toEqual([
      `admin.oidc.roles.leads: ${expected} (got {"team_admin":5}) (line 8)`,
      `admin.oidc.roles.owners: ${expected} (got "owner") (line 9)`,
      `admin.oidc.roles.devs: ${expected} (got {"developer":"payments"}) (line 10)`,
    ]);
  });

  it('refuses scopes without openid, an empty role mapping and a missing client, never quoting the secret', () => {
    expect(issuesOf(withOidc(`issuer: https://idp.corp.example\nclient_secret: 12345678\nscopes: [profile, "groups email"]\nroles: {}`))).toEqual([
      // A key the block lacks is reported at the block.
      'admin.oidc.client_id: Invalid input: expected string, received undefined (line 3)',
      'admin.oidc.client_secret: Invalid input: expected string, received number (not shown: a secret) (line 4)',
      'admin.oidc.scopes[1]: one scope per entry, without spaces (got "groups email") (line 5)',
      'admin.oidc.scopes: must include openid: it is what makes the sign-in OpenID Connect (got ["profile","groups email"]) (line 5)',
      'admin.oidc.roles: map at least one value of the role claim to a role (got {}) (line 6)',
    ]);
  });
});

describe('switchyard check-config', () => {
  it('exits 1 naming the http:// issuer off loopback and the bad role, and prints no secret', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'switchyard-oidc-check-')), 'config.yaml');
    writeFileSync(file, withOidc(`issuer: http://10.0.0.7:8080\nclient_id: c\nclient_secret: ${SECRET}\nroles: { ops: root }`));
    const cli = join(process.cwd(), 'dist', 'src', 'cli', 'main.js');
    const failure = await promisify(execFile)(process.execPath, [cli, 'check-config', file]).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('admin.oidc.issuer: an http:// issuer is only allowed on loopback');
    expect(failure?.stderr).toMatch(/admin\.oidc\.roles\.ops: expected admin, auditor.*\(line 6\)/);
    expect(`${failure?.stdout}${failure?.stderr}`).not.toContain(SECRET);
  });
});
