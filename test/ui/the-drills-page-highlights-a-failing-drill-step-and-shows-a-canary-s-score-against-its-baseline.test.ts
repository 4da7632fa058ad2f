import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mockAnswerText } from '../../src/mock/mock-provider.js';
import { chromiumForThisFile } from '../support/chromium-browser.js';
import { startGateway, type TestGateway } from '../support/start-gateway.js';
import { ADMIN_TOKEN, openPage, screenshot, signIn } from './dashboard-helpers.js';

const { available, browser } = chromiumForThisFile();
let gateway: TestGateway;
let directory: string;
let drill: { steps: { position: number; step: string; connection: string; model: string; result: string; request_id: string }[] };
let canaryRun: { id: string; score: number; baseline: number | null; threshold: number | null; dropped: boolean };

async function postAdmin<T>(url: string, path: string): Promise<T> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(30_000) });
  if (response.status !== 200) throw new Error(`POST ${path} → ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  if (!available) return;
  directory = mkdtempSync(join(tmpdir(), 'switchyard-dashboard-canary-'));
  const prompts = join(directory, 'drafts.jsonl');
  // The mock's whole answer is the reference: a healthy target scores 1, a degraded one half.
  const reference = mockAnswerText(8);
  writeFileSync(prompts, ['Draft a refund reply.', 'Draft a delivery reply.'].map((question) => JSON.stringify({ messages: [{ role: 'user', content: question }], reference })).join('\n') + '\n');
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
connections:
  mock-openai: { provider: mock, dialect: openai }
  mock-anthropic: { provider: mock, dialect: anthropic }
routes:
  support:
    retries: 0
    targets:
      - { connection: mock-openai, model: primary }
      - { connection: mock-anthropic, model: "standby?status=401" }
  drafts:
    targets: [{ connection: mock-openai, model: "drafter?degrade=0.5" }]
drills: { interval_s: 0, routes: [support] }
canaries:
  drafts: { interval_s: 0, prompts: "${prompts}", baseline: 1, max_drop: 0.1 }
`);
  drill = await postAdmin(gateway.url, '/admin/drills');
  canaryRun = (await postAdmin<{ data: (typeof canaryRun)[] }>(gateway.url, '/admin/canaries')).data[0]!;
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

it.skipIf(!available)('the Drills page highlights the failing step by its target and kind, and shows the canary run\'s score against its baseline', async () => {
  // What the provider saw: the standby was asked by its step alone and by the chain walk, and refused both.
  expect(gateway.mock.attemptsFor('standby').map((attempt) => attempt.outcome)).toEqual(['status 401', 'status 401']);
  expect(drill.steps.map((step) => `${step.step} ${step.position} ${step.result}`)).toEqual(['target 1 ok', 'target 2 credential', 'chain 2 credential']);
  expect(canaryRun).toMatchObject({ score: 0.5, baseline: 1, threshold: 0.9, dropped: true });

  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/drills');
    await page.getByRole('heading', { name: 'Latest fallback drill' }).waitFor();
    const rows = page.locator('section[aria-labelledby="drill-heading"] tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    // The passing step is plain; both failing steps are highlighted and name the target and the kind.
    expect(await rows.nth(0).getAttribute('class')).not.toContain('finding');
    const findings = page.locator('section[aria-labelledby="drill-heading"] tbody tr.finding');
    expect(await findings.count()).toBe(2);
    for (const text of await findings.allTextContents()) {
      expect(text).toContain('mock-anthropic/standby?status=401');
      expect(text).toContain('credential');
    }
    expect(await page.locator('section[aria-labelledby="drill-heading"]').textContent()).toContain('2 findings');
    // Each step links to its request's record.
    await page.getByRole('link', { name: drill.steps[1]!.request_id, exact: true }).waitFor();

    const canary = page.locator('article[data-canary="drafts"]');
    await canary.waitFor();
    expect(await canary.locator('p').first().textContent()).toContain('Baseline 1.00, alert below 0.90');
    const run = canary.locator(`li[data-run="${canaryRun.id}"]`);
    expect(await run.locator('.run-score').textContent()).toBe('score 0.50');
    expect(await run.locator('.run-baseline').textContent()).toBe('baseline 1.00, threshold 0.90');
    expect(await run.getAttribute('class')).toContain('finding');
    expect(await run.textContent()).toContain('below the threshold');
    expect(await run.textContent()).toContain('served by mock-openai/drafter?degrade=0.5');
    await screenshot(page, 'drills');
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});

it.skipIf(!available)("a canary's Run button asks first, then runs it and lists the new run with its score", async () => {
  const { page, errors, close } = await openPage(browser());
  try {
    await signIn(page, gateway.url, '/ui/drills');
    const canary = page.locator('article[data-canary="drafts"]');
    await canary.locator('li[data-run]').first().waitFor();
    const runsBefore = await canary.locator('li[data-run]').count();
    const asked = gateway.mock.attemptsFor('drafter').length;
    await canary.getByRole('button', { name: 'Run canary of drafts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run the canary of “drafts”?' });
    await dialog.getByRole('button', { name: 'Run canary' }).click();
    await canary.locator('li[data-run]').nth(runsBefore).waitFor({ timeout: 30_000 });
    // Both prompts were sent again, and the new run (newest first) is judged like the first.
    expect(gateway.mock.attemptsFor('drafter').length).toBe(asked + 2);
    expect(await canary.locator('li[data-run] .run-score').first().textContent()).toBe('score 0.50');
    expect(await canary.getByRole('button', { name: 'Run canary of drafts' }).isEnabled()).toBe(true);
    expect(errors).toEqual([]);
  } finally {
    await close();
  }
});
