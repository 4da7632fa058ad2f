import { html, nothing, render, type TemplateResult } from 'lit-html';
import { fieldChanges, type FieldChange } from '../../../src/audit/field-changes.js';
import { AUDIT_ACTIONS } from '../../../src/core/audit-entry.js';
import type { AdminAuditResponse, AuditRow } from '../admin-api-types.js';
import { followLink } from '../follow-link.js';
import { shortTimeCell } from '../format-time.js';
import type { Page } from '../page.js';

const PAGE_SIZE = 50;
/** The filters, as the page URL's query and the admin API's parameters alike. */
const FILTERS = ['actor', 'action', 'target'] as const;
/** A creation lists every field of the thing made: past this many, the rest is in the whole JSON. */
const SHOWN_CHANGES = 8;

/**
 * Audit: the trail newest first (`GET /admin/audit`), each row with who did what to what, through
 * which request and from where, and what changed (the fields, then the whole JSON on demand).
 * The filters are the page URL, so a filtered trail is a link; **Older** pages back by `seq`.
 */
export const auditPage: Page = (root, { api, query, navigate }) => {
  const filters = new URLSearchParams();
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value) filters.set(name, value);
  }
  const before = query.get('before');
  let rows: AuditRow[] | undefined;
  let error: string | undefined;
  const follow = followLink(navigate);

  const listUrl = (next: URLSearchParams) => {
    const text = next.toString();
    return `/ui/audit${text ? `?${text}` : ''}`;
  };
  const filteredBy = (name: (typeof FILTERS)[number], value: string) => {
    const next = new URLSearchParams(filters);
    next.set(name, value);
    return listUrl(next);
  };
  const apply = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const value = String(form.get(name) ?? '').trim();
      if (value !== '') next.set(name, value);
    }
    navigate(listUrl(next));
  };
  const olderUrl = () => {
    const next = new URLSearchParams(filters);
    next.set('before', String(rows!.at(-1)!.seq));
    return listUrl(next);
  };

  const draw = () =>
    render(
      html`<h1 tabindex="-1">Audit</h1>
        <p class="muted">Every change to what the gateway enforces, and every sign-in: who, what, when, from where, and what it changed.</p>
        <form class="filters" @submit=${apply}>
          <label>Actor <input name="actor" list="audit-actors" placeholder="an actor's id" .value=${filters.get('actor') ?? ''} /></label>
          <datalist id="audit-actors">${[...new Set((rows ?? []).map((row) => row.actor.id))].map((id) => html`<option value=${id}></option>`)}</datalist>
          <label
            >Action
            <select name="action">
              <option value="">any</option>
              ${AUDIT_ACTIONS.map((action) => html`<option ?selected=${filters.get('action') === action}>${action}</option>`)}
            </select></label
          >
          <label>Target <input name="target" placeholder="key_…, team_…, tok_…" .value=${filters.get('target') ?? ''} /></label>
          <button type="submit">Apply</button>
          <a href="/ui/audit" @click=${follow}>Clear</a>
        </form>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${rows === undefined
          ? html`<p class="muted">Loading…</p>`
          : rows.length === 0
            ? html`<p>No audit row matches.</p>`
            : html`<div class="table-wrap">
                <table class="audit">
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Actor</th>
                      <th scope="col">Action</th>
                      <th scope="col">Target</th>
                      <th scope="col">Request / source</th>
                      <th scope="col">Before → after</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rows.map(
                      (row) => html`<tr data-seq=${row.seq} data-action=${row.action}>
                        <td class="nowrap">${shortTimeCell(row.at)}</td>
                        <td class="audit-actor">
                          <a href=${filteredBy('actor', row.actor.id)} title=${`${row.actor.id}: show only theirs`} @click=${follow}>${row.actor.name}</a>
                          <span class="muted">${row.actor.kind}${row.actor.role ? `, ${row.actor.role}` : ''}</span>
                        </td>
                        <th scope="row" class="audit-action">${row.action}</th>
                        <td class="audit-target">${targetCell(row, filteredBy, follow)}</td>
                        <td class="mono wraps">${row.request_id ?? '—'}<div class="muted">${row.source_ip ?? ''}</div></td>
                        <td class="audit-change">${changeCell(row)}</td>
                      </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`}
        <nav class="pager" aria-label="Pages">
          ${before ? html`<a href=${listUrl(filters)} @click=${follow}>Newest</a>` : nothing}
          ${rows && rows.length === PAGE_SIZE ? html`<a href=${olderUrl()} @click=${follow}>Older</a>` : nothing}
        </nav>`,
      root,
    );

  async function load(): Promise<void> {
    const parameters = new URLSearchParams(filters);
    parameters.set('limit', String(PAGE_SIZE));
    if (before) parameters.set('before', before);
    try {
      rows = (await api.get<AdminAuditResponse>(`/admin/audit?${parameters}`)).data;
      error = undefined;
    } catch (failure) {
      rows ??= [];
      error = `The audit trail could not be read: ${(failure as Error).message}`;
    }
    draw();
  }
  draw();
  void load();
  return () => undefined;
};

function targetCell(row: AuditRow, filteredBy: (name: 'target', value: string) => string, follow: (event: MouseEvent) => void): TemplateResult {
  const { kind, id } = row.target;
  if (id === null) return html`${kind}`;
  return html`${kind} <a class="mono" href=${filteredBy('target', id)} title=${`${id}: show only its rows`} @click=${follow}>${id}</a>`;
}

/**
 * The fields that changed, a few lines at most, and the whole before and after below them. A field
 * made or dropped empty (null: a key with no budget) says nothing, so a creation lists what it set.
 */
function changeCell(row: AuditRow): TemplateResult {
  const changes = fieldChanges(row.before, row.after).filter((change) => (change.change === 'added' ? change.after !== null : change.change === 'removed' ? change.before !== null : true));
  const hidden = changes.length - SHOWN_CHANGES;
  return html`${changes.length === 0
      ? html`<span class="muted">nothing changed</span>`
      : html`<ul class="diff">
          ${changes.slice(0, SHOWN_CHANGES).map(changeLine)}
          ${hidden > 0 ? html`<li class="muted">and ${hidden} more field${hidden === 1 ? '' : 's'}</li>` : nothing}
        </ul>`}
    <details>
      <summary>Whole JSON</summary>
      <pre class="json">${JSON.stringify({ before: row.before, after: row.after }, null, 2)}</pre>
    </details>`;
}

function changeLine(change: FieldChange): TemplateResult {
  const path = change.path === '' ? html`<em>value</em>` : html`<span class="mono">${change.path}</span>`;
  if (change.change === 'added') return html`<li class="added">+ ${path}: ${valueText(change.after)}</li>`;
  if (change.change === 'removed') return html`<li class="removed">− ${path}: ${valueText(change.before)}</li>`;
  return html`<li class="changed">${path}: ${valueText(change.before)} → ${valueText(change.after)}</li>`;
}

function valueText(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}
