import { html, nothing, render } from 'lit-html';
import { formatMs, formatUsd, timeCell } from '../format-time.js';
import type { Page } from '../page.js';
import type { AdminRequestsResponse, RequestRecord } from '../admin-api-types.js';

const PAGE_SIZE = 50;
const STATUSES = ['ok', 'interrupted', 'failed', 'rejected', 'cancelled'];
const ORIGINS = ['caller', 'drill', 'canary', 'probe'];
/** The filters, as the page URL's query and the admin API's parameters alike. */
const FILTERS = ['route', 'status', 'key', 'origin', 'since'] as const;

/**
 * Requests: `/admin/requests` with the filters in the page URL (so a filtered list is a link),
 * paged by `before` (the last id shown); each id opens its attempt timeline.
 */
export const requestsPage: Page = (root, { api, query, navigate }) => {
  const filters = new URLSearchParams();
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value) filters.set(name, value);
  }
  const before = query.get('before');
  let records: RequestRecord[] | undefined;
  let error: string | undefined;

  const pageUrl = (extra: Record<string, string>) => {
    const next = new URLSearchParams(filters);
    for (const [name, value] of Object.entries(extra)) next.set(name, value);
    const text = next.toString();
    return `/ui/requests${text ? `?${text}` : ''}`;
  };
  const open = (event: MouseEvent, url: string) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(url);
  };
  const apply = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const value = String(form.get(name) ?? '').trim();
      if (value === '') continue;
      // The time field is local; the API takes ISO 8601.
      next.set(name, name === 'since' ? new Date(value).toISOString() : value);
    }
    const text = next.toString();
    navigate(`/ui/requests${text ? `?${text}` : ''}`);
  };
  const sinceLocal = () => {
    const since = filters.get('since');
    if (!since || Number.isNaN(Date.parse(since))) return '';
    const at = new Date(Date.parse(since) - new Date().getTimezoneOffset() * 60_000);
    return at.toISOString().slice(0, 16);
  };

  const draw = () =>
    render(
      html`<h1 tabindex="-1">Requests</h1>
        <form class="filters" @submit=${apply}>
          <label>Route <input name="route" .value=${filters.get('route') ?? ''} /></label>
          <label
            >Status
            <select name="status">
              <option value="">any</option>
              ${STATUSES.map((status) => html`<option ?selected=${filters.get('status') === status}>${status}</option>`)}
            </select></label
          >
          <label>Key <input name="key" .value=${filters.get('key') ?? ''} /></label>
          <label
            >Origin
            <select name="origin">
              <option value="">any</option>
              ${ORIGINS.map((origin) => html`<option ?selected=${filters.get('origin') === origin}>${origin}</option>`)}
            </select></label
          >
          <label>Since <input name="since" type="datetime-local" .value=${sinceLocal()} /></label>
          <button type="submit">Apply</button>
          <a href="/ui/requests" @click=${(event: MouseEvent) => open(event, '/ui/requests')}>Clear</a>
        </form>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${records === undefined
          ? html`<p class="muted">Loading…</p>`
          : records.length === 0
            ? html`<p>No request matches.</p>`
            : html`<div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Request</th>
                      <th scope="col">Time</th>
                      <th scope="col">Route</th>
                      <th scope="col">Status</th>
                      <th scope="col">Served by</th>
                      <th scope="col">Tries</th>
                      <th scope="col">Latency</th>
                      <th scope="col">Cost</th>
                      <th scope="col">Key</th>
                      <th scope="col">Origin</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${records.map(
                      (record) => html`<tr>
                        <th scope="row"><a class="mono" href=${`/ui/requests/${encodeURIComponent(record.id)}`} @click=${(event: MouseEvent) => open(event, `/ui/requests/${encodeURIComponent(record.id)}`)}>${record.id}</a></th>
                        <td>${timeCell(record.created_at)}</td>
                        <td>${record.route ?? record.model_requested ?? '—'}</td>
                        <td><span class="status status-${record.status}">${record.status}</span> <span class="muted">${record.http_status}</span></td>
                        <td>${record.served ? `${record.served.connection}/${record.served.model}` : '—'}${record.fallback ? html` <span class="tag">fallback</span>` : nothing}</td>
                        <td>${record.attempts.length}</td>
                        <td>${formatMs(record.latency_ms)}</td>
                        <td>${formatUsd(record.cost_usd)}</td>
                        <td>${record.key_name ?? '—'}</td>
                        <td>${record.origin ?? '—'}</td>
                      </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`}
        <nav class="pager" aria-label="Pages">
          ${before ? html`<a href=${pageUrl({})} @click=${(event: MouseEvent) => open(event, pageUrl({}))}>Newest</a>` : nothing}
          ${records && records.length === PAGE_SIZE
            ? html`<a href=${pageUrl({ before: records.at(-1)!.id })} @click=${(event: MouseEvent) => open(event, pageUrl({ before: records!.at(-1)!.id }))}>Older</a>`
            : nothing}
        </nav>`,
      root,
    );

  async function load(): Promise<void> {
    const parameters = new URLSearchParams(filters);
    parameters.set('limit', String(PAGE_SIZE));
    if (before) parameters.set('before', before);
    try {
      records = (await api.get<AdminRequestsResponse>(`/admin/requests?${parameters}`)).data;
      error = undefined;
    } catch (failure) {
      records = [];
      error = `The requests could not be listed: ${(failure as Error).message}`;
    }
    draw();
  }
  draw();
  void load();
  return () => undefined;
};
