import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-demo-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

it('switchyard demo prints the id of every request it sent, and each is a stored record', async () => {
  const { code, stdout } = await runCli(['demo', '--requests', '1'], { cwd: directory });
  expect(code).toBe(0);
  // One request per demo route, each id on its row of the summary.
  const rows = [...stdout.matchAll(/^(req_\S+) +(demo\S*) /gm)].map((match) => ({ id: match[1]!, route: match[2]! }));
  expect(rows.map((row) => row.route)).toEqual(['demo', 'demo-claude', 'demo-failover']);
  const failoverId = rows[2]!.id;
  expect(stdout).toContain(`npx switchyard requests show ${failoverId}`);

  const store = new Database(join(directory, 'switchyard.db'), { readonly: true });
  try {
    const stored = store.prepare('SELECT id, route FROM requests ORDER BY id').all() as { id: string; route: string }[];
    expect(stored).toEqual(expect.arrayContaining(rows.map(({ id, route }) => ({ id, route }))));
    expect(stored).toHaveLength(rows.length);
    const attempts = store.prepare('SELECT COUNT(*) AS count FROM attempts WHERE request_id = ?').get(failoverId) as { count: number };
    expect(attempts.count).toBe(2);
  } finally {
    store.close();
  }
});
