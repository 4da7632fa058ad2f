import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runKeysCreate, runKeysList } from '../../src/cli/keys.js';
import { runRequestsList } from '../../src/cli/requests-list.js';
import { runTeamsCreate, runTeamsDelete, runTeamsList, runTeamsShow, runTeamsSpend, runTeamsUpdate } from '../../src/cli/teams.js';
import { runCli } from '../support/cli-process.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, chat, teamsConfig } from './team-calls.js';

let gateway: TestGateway;
let admin: { url: string; token: string };

beforeAll(async () => {
  gateway = await startGateway(teamsConfig(''));
  admin = { url: gateway.url, token: ADMIN_TOKEN };
});
afterAll(() => gateway?.close());
afterEach(() => vi.restoreAllMocks());

/** Runs a command and returns its exit code with everything it printed. */
async function run(command: () => Promise<number>) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((text: unknown) => void out.push(String(text)));
  vi.spyOn(console, 'error').mockImplementation((text: unknown) => void err.push(String(text)));
  const code = await command();
  vi.restoreAllMocks();
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('switchyard teams', () => {
  it('makes a team with its budget, limits, route bounds and exploration policy, and shows it by name', async () => {
    const created = await run(() =>
      runTeamsCreate({
        ...admin,
        name: 'search',
        budgetUsd: '250',
        budgetPeriod: 'month',
        rpm: '600',
        routes: 'search,chat',
        explorationMaxTtlS: '86400',
        explorationRpm: '10',
        explorationBudgetUsd: '5',
        explorationBudgetPeriod: 'day',
      }),
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^id +team_[0-9a-f]{16}$/m);
    expect(created.stdout).toMatch(/^budget +\$250\.00 \/ month$/m);
    expect(created.stdout).toMatch(/^limits +rpm 600, tpm -$/m);
    expect(created.stdout).toMatch(/^routes +search,chat$/m);
    expect(created.stdout).toMatch(/^exploration +keys live 1 d, rpm 10, \$5\.00 \/ day$/m);
    const shown = await run(() => runTeamsShow('search', admin));
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(/^id +(team_\S+)$/m.exec(created.stdout)![1]);
  });

  it('lists the teams as a table, and changes one leaving what it was not told about', async () => {
    await run(() => runTeamsCreate({ ...admin, name: 'billing', rpm: '60', tpm: '1000' }));
    const listed = await run(() => runTeamsList(admin));
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^id +name +budget +rpm +tpm +routes +exploration +created$/);
    expect(listed.stdout).toMatch(/^team_\S+ +billing +- +60 +1000 +all +keys live 7 d +\S+$/m);

    const updated = await run(() => runTeamsUpdate('billing', { ...admin, rpm: '120', explorationTpm: '500', clear: 'routes' }));
    expect(updated.stderr).toBe('');
    expect(updated.stdout).toMatch(/^limits +rpm 120, tpm 1000$/m);
    expect(updated.stdout).toMatch(/^exploration +keys live 7 d, tpm 500$/m);
    const renamed = await run(() => runTeamsUpdate('billing', { ...admin, name: 'invoicing' }));
    expect(renamed.stdout).toMatch(/^name +invoicing$/m);
  });

  it('says what is wrong with an option, or with what the gateway refused, and exits 1', async () => {
    expect(await run(() => runTeamsCreate({ ...admin, name: 'x', budgetUsd: '5' }))).toMatchObject({ code: 1, stderr: expect.stringContaining('--budget-usd and --budget-period go together') });
    expect(await run(() => runTeamsCreate({ ...admin, name: 'x', explorationRpm: 'lots' }))).toMatchObject({ code: 1, stderr: expect.stringContaining('--exploration-rpm must be a whole number') });
    expect(await run(() => runTeamsUpdate('search', { ...admin }))).toMatchObject({ code: 1, stderr: expect.stringContaining('nothing to change') });
    expect(await run(() => runTeamsUpdate('search', { ...admin, clear: 'colour' }))).toMatchObject({ code: 1, stderr: expect.stringContaining('--clear takes') });
    expect(await run(() => runTeamsCreate({ ...admin, name: 'search' }))).toMatchObject({ code: 1, stderr: expect.stringContaining('409') });
    expect(await run(() => runTeamsShow('nobody', admin))).toMatchObject({ code: 1, stderr: expect.stringContaining('No team with id or name "nobody"') });
  });

  it("makes keys in a team, an exploration key within its policy, prints the team's spend, lists its requests, and deletes it once its keys are revoked", async () => {
    await run(() => runTeamsCreate({ ...admin, name: 'lab', budgetUsd: '10', budgetPeriod: 'day', explorationMaxTtlS: '3600' }));
    const service = await run(() => runKeysCreate({ ...admin, name: 'lab service', team: 'lab' }));
    expect(service.code).toBe(0);
    expect(service.stdout).toMatch(/^kind +service$/m);
    expect(service.stdout).toMatch(/^team +team_\S+$/m);
    const exploring = await run(() => runKeysCreate({ ...admin, name: 'lab try', team: 'lab', kind: 'exploration' }));
    expect(exploring.code).toBe(0);
    expect(exploring.stdout).toMatch(/^kind +exploration$/m);
    const expires = Date.parse(/^expires +(\S+)$/m.exec(exploring.stdout)![1]!);
    expect(expires).toBeGreaterThan(Date.now() + 3_500_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3_600_000);
    const beyond = await run(() => runKeysCreate({ ...admin, name: 'lab long', team: 'lab', kind: 'exploration', expiresAt: '2999-01-01T00:00:00Z' }));
    expect(beyond).toMatchObject({ code: 1, stderr: expect.stringContaining('expires_at: beyond the exploration policy') });
    const keys = await run(() => runKeysList(admin));
    expect(keys.stdout).toMatch(/lab try +sk-sy-\S+ +active +exploration +team_/);

    const secret = /sk-sy-[A-Za-z0-9_-]{43}/.exec(service.stdout)![0];
    const teamless = /sk-sy-[A-Za-z0-9_-]{43}/.exec((await run(() => runKeysCreate({ ...admin, name: 'no team' }))).stdout)![0];
    expect([await chat(gateway.url, secret), await chat(gateway.url, teamless)]).toEqual([200, 200]);
    const spend = await run(() => runTeamsSpend('lab', admin));
    expect(spend.code).toBe(0);
    expect(spend.stdout).toMatch(/^spent +\$0\.\d+ of \$10\.00 \/ day$/m);
    expect(spend.stdout).toMatch(/^reserved +\$0\.00$/m);
    const requests = await run(() => runRequestsList({ ...admin, team: 'lab' }));
    expect(requests.code).toBe(0);
    const rows = (output: string) => output.split('\n').filter((line) => line.startsWith('req_')).length;
    expect(rows(requests.stdout)).toBe(1);
    expect(rows((await run(() => runRequestsList(admin))).stdout)).toBe(2);

    const refused = await run(() => runTeamsDelete('lab', admin));
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('2 active keys') });
    for (const id of keys.stdout.match(/^key_\S+(?= +lab )/gm) ?? []) await fetch(`${gateway.url}/admin/keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const deleted = await run(() => runTeamsDelete('lab', admin));
    expect(deleted).toMatchObject({ code: 0, stdout: 'deleted team lab' });
  });

  it('is a command of the built CLI, its flags turned into the same calls', async () => {
    const flags = ['--url', gateway.url, '--token', ADMIN_TOKEN];
    const created = await runCli(['teams', 'create', '--name', 'from-the-shell', '--tpm', '900', '--exploration-max-ttl-s', '7200', ...flags]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^exploration +keys live 2 h$/m);
    const updated = await runCli(['teams', 'update', 'from-the-shell', '--budget-usd', '3', '--budget-period', 'total', '--clear', 'limits', ...flags]);
    expect(updated.stdout).toMatch(/^limits +rpm -, tpm -$/m);
    expect(updated.stdout).toMatch(/^budget +\$3\.00 \/ total$/m);
    expect((await runCli(['teams', 'spend', 'from-the-shell', ...flags])).stdout).toMatch(/^spent +\$0\.00 of \$3\.00 \/ total$/m);
    expect((await runCli(['teams', 'delete', 'from-the-shell', ...flags])).stdout.trim()).toBe('deleted team from-the-shell');
  });
});
