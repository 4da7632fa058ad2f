import { html, nothing, render } from 'lit-html';
import { formatTokens, formatUsd, timeCell } from '../format-time.js';

const DAY_MS = 86_400_000;
/** The last day in 15-minute steps: 96 points per key. */
const HISTORY_BUCKET_S = 900;
import type { AdminKeysResponse, AdminStatsResponse, CreatedKeyView, KeySpendView, KeyStatsView, KeyView } from '../admin-api-types.js';
import { sparkline, type SparkSeries } from '../sparkline.js';
import { ConfirmDialog } from '../confirm-dialog.js';
import { FormFields, periodChoice } from '../form-fields.js';
import { budgetText, limitsText } from '../limits-text.js';
import { NewSecret } from '../new-secret.js';
import { ORIGIN_WORDS } from '../origin-words.js';
import type { Page } from '../page.js';
import { spendMeter } from '../spend-meter.js';

/**
 * Keys: each key's spend against its budget, limits and expiry; create (the secret shown once,
 * dropped from the page when dismissed) and revoke (after a confirmation), for a role that may.
 */
export const keysPage: Page = (root, { api, can }) => {
  let keys: KeyView[] | undefined;
  const spend = new Map<string, KeySpendView>();
  let history: { starts: number[]; byKey: Map<string, KeyStatsView> } | undefined;
  let error: string | undefined;
  let createError: string | undefined;
  let showInactive = false;
  let notice: string | undefined;

  const draw = () => {
    const shown = (keys ?? []).filter((key) => showInactive || key.status === 'active');
    render(
      html`<h1 tabindex="-1">Keys</h1>
        <p class="visually-hidden" aria-live="polite">${notice ?? ''}</p>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${secret.template()}
        <p class="muted keys-origin">Spend and tokens count each key's own requests: ${ORIGIN_WORDS.caller} only, as the gateway's drills, canaries and probes use no key.</p>
        <label class="inline"><input type="checkbox" .checked=${showInactive} @change=${toggleInactive} /> Show revoked and expired keys</label>
        ${keys === undefined
          ? html`<p class="muted">Loading…</p>`
          : shown.length === 0
            ? html`<p>No ${showInactive ? '' : 'active '}key yet.</p>`
            : html`<div class="table-wrap">
                <table id="keys">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Key</th>
                      <th scope="col">Routes</th>
                      <th scope="col">Spend / budget</th>
                      <th scope="col">Last day</th>
                      <th scope="col">Tokens, last day</th>
                      <th scope="col">Limits</th>
                      <th scope="col">Expires</th>
                      <th scope="col">Status</th>
                      <th scope="col"><span class="visually-hidden">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${shown.map(
                      (key) => html`<tr data-key=${key.name}>
                        <th scope="row">${key.name}</th>
                        <td class="mono">${key.key_prefix}…</td>
                        <td>${key.routes === null ? 'all' : key.routes.join(', ')}</td>
                        <td>${spendOf(key, spend.get(key.id))}</td>
                        <td>${spendHistory(spend.get(key.id), history, key.name)}</td>
                        <td class="nowrap">${tokensOf(history?.byKey.get(key.name))}</td>
                        <td>${limitsText(key.limits)}</td>
                        <td>${timeCell(key.expires_at, 'never')}</td>
                        <td>${key.status}${key.revoked_at ? html` ${timeCell(key.revoked_at)}` : nothing}</td>
                        <td>${key.status === 'revoked' || !can('DELETE /admin/keys/:id') ? nothing : html`<button type="button" class="danger" @click=${() => askRevoke(key)}>Revoke</button>`}</td>
                      </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`}
        ${can('POST /admin/keys') ? createForm() : nothing}
        ${confirm.template()}`,
      root,
    );
  };
  const createForm = () =>
    html`<section aria-labelledby="create-heading">
      <h2 id="create-heading">Create a key</h2>
      <form class="create-key" @submit=${create}>
        <label>Name <input name="name" required /></label>
        <label>Routes <input name="routes" placeholder="all, or globs: support-*, chat" /></label>
        <label>Budget (USD) <input name="budget" type="number" min="0" step="0.01" /></label>
        <label
          >Per
          ${periodChoice()}</label
        >
        <label>Requests per minute <input name="rpm" type="number" min="1" step="1" /></label>
        <label>Tokens per minute <input name="tpm" type="number" min="1" step="1" /></label>
        <label>Expires <input name="expires" type="datetime-local" /></label>
        <button type="submit">Create key</button>
        ${createError ? html`<p class="error" role="alert">${createError}</p>` : nothing}
      </form>
    </section>`;
  const confirm = new ConfirmDialog('revoke-dialog', root, draw);
  const secret = new NewSecret(root, draw);

  /** Every key's spend and tokens by the quarter hour over the last day (`/admin/stats`). */
  async function loadHistory(): Promise<void> {
    const since = new Date(Date.now() - DAY_MS).toISOString();
    try {
      const stats = await api.get<AdminStatsResponse>(`/admin/stats?since=${encodeURIComponent(since)}&bucket_s=${HISTORY_BUCKET_S}&origin=caller`);
      history = { starts: stats.data.map((bucket) => Date.parse(bucket.start)), byKey: new Map(stats.by_key.map((row) => [row.key_name, row])) };
    } catch {
      // The keys and their spend matter more: the charts stay empty ("—") until the next read.
    }
  }

  async function load(): Promise<void> {
    try {
      keys = (await api.get<AdminKeysResponse>('/admin/keys')).data;
      error = undefined;
      draw();
      await Promise.all([
        loadHistory(),
        ...keys
          .filter((key) => key.status === 'active')
          .map(async (key) => {
            spend.set(key.id, await api.get<KeySpendView>(`/admin/keys/${encodeURIComponent(key.id)}/spend`));
          }),
      ]);
    } catch (failure) {
      error = `The keys could not be read: ${(failure as Error).message}`;
    }
    draw();
  }

  function toggleInactive(event: Event): void {
    showInactive = (event.currentTarget as HTMLInputElement).checked;
    draw();
  }

  async function create(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const fields = new FormFields(form);
    const body: Record<string, unknown> = { name: fields.text('name') };
    const routes = fields.routes();
    if (routes) body.routes = routes;
    const budget = fields.budget();
    if (budget) body.budget = budget;
    const limits = fields.limits();
    if (limits.rpm !== null || limits.tpm !== null) body.limits = limits;
    const expires = fields.time('expires');
    if (expires) body.expires_at = expires;
    try {
      const answer = await api.post<CreatedKeyView>('/admin/keys', body);
      createError = undefined;
      form.reset();
      secret.show(answer.name, answer.key);
      await load();
    } catch (failure) {
      createError = `The key was not created: ${(failure as Error).message}`;
      draw();
    }
  }

  function askRevoke(key: KeyView): void {
    confirm.open({
      title: `Revoke “${key.name}”?`,
      body: 'Every request with this key is refused (401) from now on. This cannot be undone.',
      action: 'Revoke key',
      danger: true,
      run: () => void revoke(key),
    });
  }

  async function revoke(key: KeyView): Promise<void> {
    try {
      await api.delete(`/admin/keys/${encodeURIComponent(key.id)}`);
      notice = `Key ${key.name} revoked.`;
    } catch (failure) {
      error = `The key was not revoked: ${(failure as Error).message}`;
    }
    await load();
  }

  draw();
  void load();
  // Leaving the page drops a secret still shown.
  return () => secret.forget();
};

function spendOf(key: KeyView, spend: KeySpendView | undefined) {
  if (!spend) return key.budget ? `budget ${budgetText(key.budget)}` : '—';
  return spendMeter(spend);
}

/**
 * The spend of the key's current period at the end of each quarter hour of the last day, against
 * its budget: today's spend minus what was spent after that point. Quarter hours that ended
 * before the period began (its budget restarted) are left out.
 */
function spendHistory(spend: KeySpendView | undefined, history: { starts: number[]; byKey: Map<string, KeyStatsView> } | undefined, name: string) {
  if (!spend || !history) return '—';
  const series = history.byKey.get(name)?.series ?? history.starts.map(() => ({ spend_usd: 0 }));
  const periodStartMs = Date.parse(spend.period_start);
  let after = 0;
  const cumulative: (number | null)[] = [];
  for (let index = series.length - 1; index >= 0; index--) {
    // A point is the spend at its quarter hour's end: only one that ended before the period began
    // has nothing to show (a key created, or a budget restarted, within the last quarter hour still
    // gets its latest point).
    const endMs = (history.starts[index] ?? 0) + HISTORY_BUCKET_S * 1000;
    cumulative[index] = endMs <= periodStartMs ? null : Math.max(0, spend.usd - after);
    after += series[index]?.spend_usd ?? 0;
  }
  const first = cumulative.find((value) => value !== null);
  const label = `spend of the period over the last day: ${formatUsd(first ?? spend.usd)} to ${formatUsd(spend.usd)}${spend.budget_usd === null ? ', no budget' : ` of ${formatUsd(spend.budget_usd)}`}`;
  const lines: SparkSeries[] = [{ values: cumulative, colour: '#2563eb' }];
  if (spend.budget_usd !== null) lines.push({ values: cumulative.map(() => spend.budget_usd), colour: '#dc2626', dashed: true });
  return sparkline(lines, label, spend.budget_usd ?? 0);
}

function tokensOf(stats: KeyStatsView | undefined): string {
  if (!stats) return '—';
  return `${formatTokens(stats.tokens.input)} in / ${formatTokens(stats.tokens.output)} out`;
}
