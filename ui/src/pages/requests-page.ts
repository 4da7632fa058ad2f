import { html, nothing, render } from 'lit-html';
import type { AdminHealthResponse, AdminRequestsResponse, RequestRecord, TeamView } from '../admin-api-types.js';
import { formatMs, formatUsage, formatUsd, shortTimeCell } from '../format-time.js';
import { followLink } from '../follow-link.js';
import type { Page } from '../page.js';
import { errorKindLabel, recordErrorKind, REQUEST_ERROR_KINDS } from '../request-error-kind.js';
import { teamChoice, teamsToFilterBy } from '../team-filter.js';

const PAGE_SIZE = 50;
const LIVE_MS = 5_000;
const STATUSES = ['ok', 'interrupted', 'failed', 'rejected', 'cancelled'];
/** `origin` in the URL and the API: callers' when absent (the API's default), so the gateway's own probes stay out of sight until asked for. */
const ORIGINS = { caller: 'callers', all: 'every origin', probe: 'probes', drill: 'drills', canary: 'canaries' } as const;
/** The filters, as the page URL's query and the admin API's parameters alike. */
const FILTERS = ['route', 'deployment', 'key', 'team', 'status', 'error_kind', 'fallback', 'origin', 'since'] as const;

/**
 * Requests: `/admin/requests` with the filters in the page URL (so a filtered list is a link; one
 * team's requests with `team=`), paged by `before` (the last id shown); each id opens its attempt
 * timeline. `live=1` (the newest page only) reads the list again every few seconds.
 */
export const requestsPage: Page = (root, { api, can, query, navigate }) => {
  const filters = new URLSearchParams();
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value) filters.set(name, value);
  }
  const before = query.get('before');
  const live = query.get('live') === '1' && !before;
  let records: RequestRecord[] | undefined;
  let deployments: string[] = [];
  let teams: TeamView[] = [];
  let error: string | undefined;
  let loadedAt: string | undefined;

  const listUrl = (next: URLSearchParams) => {
    const text = next.toString();
    return `/ui/requests${text ? `?${text}` : ''}`;
  };
  const pageUrl = (extra: Record<string, string>) => {
    const next = new URLSearchParams(filters);
    for (const [name, value] of Object.entries(extra)) next.set(name, value);
    return listUrl(next);
  };
  const follow = followLink(navigate);
  const apply = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const value = String(form.get(name) ?? '').trim();
      // The callers' are the default: a link to them stays as short as the page's own URL.
      if (value === '' || (name === 'origin' && value === 'caller')) continue;
      // The time field is local; the API takes ISO 8601.
      next.set(name, name === 'since' ? new Date(value).toISOString() : value);
    }
    if (live) next.set('live', '1');
    navigate(listUrl(next));
  };
  const toggleLive = (event: Event) => {
    const next = new URLSearchParams(filters);
    if ((event.currentTarget as HTMLInputElement).checked) next.set('live', '1');
    navigate(listUrl(next));
  };
  const sinceLocal = () => {
    const since = filters.get('since');
    if (!since || Number.isNaN(Date.parse(since))) return '';
    const at = new Date(Date.parse(since) - new Date().getTimezoneOffset() * 60_000);
    return at.toISOString().slice(0, 16);
  };
  const choice = (name: string, options: readonly string[], label: (option: string) => string = (option) => option) =>
    html`<select name=${name}>
      <option value="">any</option>
      ${options.map((option) => html`<option value=${option} ?selected=${filters.get(name) === option}>${label(option)}</option>`)}
    </select>`;
  const requestLink = (id: string) => html`<a class="mono" href=${`/ui/requests/${encodeURIComponent(id)}`} title=${id} @click=${follow}>${id}</a>`;

  const draw = () =>
    render(
      html`<h1 tabindex="-1">Requests</h1>
        <form class="filters" @submit=${apply}>
          <label>Route <input name="route" .value=${filters.get('route') ?? ''} /></label>
          <label>Served by <input name="deployment" list="deployments" placeholder="connection/model" .value=${filters.get('deployment') ?? ''} /></label>
          <datalist id="deployments">${deployments.map((deployment) => html`<option value=${deployment}></option>`)}</datalist>
          <label>Key <input name="key" .value=${filters.get('key') ?? ''} /></label>
          ${teamChoice(teams, filters.get('team'))}
          <label>Status ${choice('status', STATUSES)}</label>
          <label>Error kind ${choice('error_kind', REQUEST_ERROR_KINDS, errorKindLabel)}</label>
          <label>Fallback ${choice('fallback', ['true', 'false'], (value) => (value === 'true' ? 'yes' : 'no'))}</label>
          <label>Origin ${originChoice(filters.get('origin') ?? 'caller')}</label>
          <label>Since <input name="since" type="datetime-local" .value=${sinceLocal()} /></label>
          <button type="submit">Apply</button>
          <a href="/ui/requests" @click=${follow}>Clear</a>
        </form>
        <div class="toolbar">
          <label class="inline"><input type="checkbox" .checked=${live} ?disabled=${before !== null} @change=${toggleLive} /> Live: read again every ${LIVE_MS / 1000} s</label>
          ${loadedAt ? html`<span class="muted">read ${shortTimeCell(loadedAt)}</span>` : nothing}
        </div>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${records === undefined
          ? html`<p class="muted">Loading…</p>`
          : records.length === 0
            ? html`<p>No request matches.</p>`
            : html`<div class="table-wrap">
                <table class="requests">
                  <thead>
                    <tr>
                      <th scope="col">Request</th>
                      <th scope="col">Time</th>
                      <th scope="col">Requested → served</th>
                      <th scope="col">Status</th>
                      <th scope="col">Error kind</th>
                      <th scope="col" class="number">Tries</th>
                      <th scope="col" class="number">First token / total</th>
                      <th scope="col" class="number">Tokens in / out / cached</th>
                      <th scope="col" class="number">Cost</th>
                      <th scope="col">Key</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${records.map(
                      (record) => html`<tr data-error-kind=${recordErrorKind(record) ?? ''}>
                        <th scope="row" class="request-id">${requestLink(record.id)}</th>
                        <td class="nowrap">${shortTimeCell(record.created_at)}</td>
                        <td>
                          ${record.route ?? html`<span class="muted">no route</span>${record.model_requested === null ? nothing : ` (${record.model_requested})`}`}
                          ${record.served ? html`→ <span class="mono">${record.served.connection}/${record.served.model}</span>` : nothing}${record.fallback ? html` <span class="tag">fallback</span>` : nothing}${record.origin !== 'caller' ? html` <span class="tag origin">${record.origin}</span>` : nothing}
                        </td>
                        <td class="nowrap"><span class="status status-${record.status}">${record.status}</span> <span class="muted">${record.http_status}</span></td>
                        <td class="error-kind">${errorKindLabel(recordErrorKind(record) ?? '')}</td>
                        <td class="number">${record.attempts.length}</td>
                        <td class="number nowrap">${record.first_token_ms === null ? '—' : formatMs(record.first_token_ms)} / ${formatMs(record.latency_ms)}</td>
                        <td class="number nowrap">${formatUsage(record.usage)}</td>
                        <td class="number">${formatUsd(record.cost_usd)}</td>
                        <td>${record.key_name ?? '—'}</td>
                      </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`}
        <nav class="pager" aria-label="Pages">
          ${before ? html`<a href=${pageUrl({})} @click=${follow}>Newest</a>` : nothing}
          ${records && records.length === PAGE_SIZE
            ? html`<a href=${pageUrl({ before: records.at(-1)!.id })} @click=${follow}>Older</a>`
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
      loadedAt = new Date().toISOString();
      error = undefined;
    } catch (failure) {
      records ??= [];
      error = `The requests could not be listed: ${(failure as Error).message}`;
    }
    draw();
  }
  /** The deployments to offer in the "Served by" field: every configured one. */
  async function loadDeployments(): Promise<void> {
    try {
      deployments = (await api.get<AdminHealthResponse>('/admin/health')).data.map((deployment) => deployment.deployment);
      draw();
    } catch {
      // The field takes any connection/model typed in; the suggestions are a convenience.
    }
  }
  draw();
  void load();
  void loadDeployments();
  void teamsToFilterBy(api, can).then((listed) => {
    teams = listed;
    draw();
  });
  const timer = live ? setInterval(() => void load(), LIVE_MS) : undefined;
  return () => clearInterval(timer);
};

/** No "any" here, unlike the other choices: without an origin the list is the callers'. */
function originChoice(selected: string) {
  return html`<select name="origin">
    ${Object.entries(ORIGINS).map(([value, label]) => html`<option value=${value} ?selected=${selected === value}>${label}</option>`)}
  </select>`;
}
