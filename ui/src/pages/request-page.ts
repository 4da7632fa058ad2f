import { html, nothing, render } from 'lit-html';
import { FailureKind } from '../../../src/core/failure-kind.js';
import { describeRecord, type RecordDescription } from '../../../src/records/describe-record.js';
import { relativeToTheSecond } from '../../../src/records/relative-to-the-second.js';
import { formatMs, formatUsage, formatUsd, timeCell } from '../format-time.js';
import { followLink } from '../follow-link.js';
import type { Page } from '../page.js';
import type { RequestRecord } from '../admin-api-types.js';

/** A request's record with its attempt timeline: every attempt a bar on one time axis. */
export const requestPage: Page = (root, { api, params, navigate }) => {
  const id = params.id ?? '';
  let record: RequestRecord | undefined;
  let error: string | undefined;
  let selected: number | undefined;

  const back = followLink(navigate);
  const select = (n: number) => {
    selected = n;
    draw();
  };

  const draw = () =>
    render(
      html`<p><a href="/ui/requests" @click=${back}>← Requests</a></p>
        <h1 tabindex="-1" class="mono">${id}</h1>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${record ? summary(record, describeRecord(record)) : error ? nothing : html`<p class="muted">Loading…</p>`}
        ${record ? timeline(record, describeRecord(record), selected, select) : nothing}`,
      root,
    );

  async function load(): Promise<void> {
    try {
      record = await api.get<RequestRecord>(`/admin/requests/${encodeURIComponent(id)}`);
    } catch (failure) {
      error = `The request could not be read: ${(failure as Error).message}`;
    }
    draw();
  }
  draw();
  void load();
  return () => undefined;
};

function summary(record: RequestRecord, description: RecordDescription) {
  const rows: [string, unknown][] = [
    ['Time', timeCell(record.created_at)],
    ['Status', html`<span class="status status-${record.status}">${record.status}</span> ${record.http_status}${record.error_code ? ` ${record.error_code}` : ''}`],
    ['Route', record.route ?? html`<span class="muted">no route</span>${record.model_requested === null ? nothing : ` (model ${record.model_requested})`}`],
    ['Served by', record.served ? html`${record.served.connection}/${record.served.model}${record.fallback ? html` <span class="tag">fallback</span>` : nothing}` : '—'],
    ['Latency', `${formatMs(record.latency_ms)} (gateway added ${formatMs(record.added_latency_ms)})`],
    ['First token', formatMs(record.first_token_ms)],
    ['Deadline', formatMs(record.deadline_ms)],
    ['Tokens in / out / cached', formatUsage(record.usage)],
    ['Cost', formatUsd(record.cost_usd)],
    ['Key', record.key_name ?? '—'],
    ['Origin', record.origin ?? '—'],
    ['Stream', record.stream ? 'yes' : 'no'],
  ];
  return html`<dl class="summary">
    ${rows.map(([name, value]) => html`<div><dt>${name}</dt><dd>${value}</dd></div>`)}
    ${description.error === null ? nothing : html`<div class="whole-row"><dt>Error</dt><dd>${description.error}</dd></div>`}
  </dl>`;
}


/**
 * The bars share one axis from the request's start to its end. First-token marks sit where the
 * attempt's first content came (first_token_ms is counted from the attempt's own start); the
 * commit mark where the answer was committed to the caller: at its first content when it
 * streamed one, else at the attempt's end.
 */
function timeline(record: RequestRecord, description: RecordDescription, selected: number | undefined, select: (n: number) => void) {
  const endMs = Math.max(1, record.latency_ms, ...record.attempts.map((attempt) => attempt.started_ms + attempt.latency_ms));
  const at = (ms: number) => `${Math.min(100, Math.max(0, (ms / endMs) * 100)).toFixed(3)}%`;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((fraction) => fraction * endMs);
  const kinds = [...new Set(record.attempts.map((attempt) => attempt.kind))];
  return html`<section class="timeline" aria-labelledby="timeline-heading">
    <h2 id="timeline-heading">Timeline</h2>
    ${record.attempts.length === 0
      ? html`<p>
            No provider was called:
            ${record.skipped?.length ? 'every target of the route was passed over (below)' : `the gateway refused the request before its first try${record.error_code ? ` (${record.error_code})` : ''}`}.
          </p>
          ${skippedList(record, description)}`
      : html`<ul class="legend">
            ${kinds.map((kind) => html`<li><span class="swatch kind-${kindClass(kind)}"></span>${kind}</li>`)}
            <li><span class="mark-sample first-token"></span>first token</li>
            <li><span class="mark-sample commit"></span>committed</li>
          </ul>
          <div class="lanes">
            ${record.attempts.map(
              (attempt) => html`<div class="lane">
                <div class="lane-name mono">#${attempt.n} ${attempt.connection}/${attempt.model}</div>
                <div class="track">
                  <button
                    type="button"
                    class="bar kind-${kindClass(attempt.kind)} ${selected === attempt.n ? 'selected' : ''}"
                    style="left: ${at(attempt.started_ms)}; width: max(3px, calc(${at(attempt.latency_ms)}))"
                    aria-label=${`attempt ${attempt.n}: ${attempt.kind} ${attempt.connection}/${attempt.model}`}
                    title=${`${attempt.kind}, ${formatMs(attempt.latency_ms)} from ${formatMs(attempt.started_ms)}`}
                    @click=${() => select(attempt.n)}
                  ></button>
                  ${attempt.first_token_ms === null ? nothing : html`<span class="mark first-token" style="left: ${at(attempt.started_ms + attempt.first_token_ms)}" title="first token"></span>`}
                  ${attempt.committed ? html`<span class="mark commit" style="left: ${at(attempt.started_ms + (attempt.first_token_ms ?? attempt.latency_ms))}" title="committed"></span>` : nothing}
                </div>
              </div>`,
            )}
            <div class="lane axis" aria-hidden="true">
              <div class="lane-name"></div>
              <div class="track">${ticks.map((ms) => html`<span class="tick" style="left: ${at(ms)}">${formatMs(ms)}</span>`)}</div>
            </div>
          </div>
          ${skippedList(record, description)}
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">No.</th>
                  <th scope="col">Target</th>
                  <th scope="col">Kind</th>
                  <th scope="col">HTTP</th>
                  <th scope="col">Started</th>
                  <th scope="col">Took</th>
                  <th scope="col">First token</th>
                  <th scope="col">Committed</th>
                  <th scope="col">Cost</th>
                  <th scope="col">Why the gateway moved on</th>
                </tr>
              </thead>
              <tbody>
                ${record.attempts.map(
                  (attempt, index) => html`<tr class=${selected === attempt.n ? 'selected' : ''}>
                    <td>${attempt.n}</td>
                    <td class="mono wraps">${attempt.connection}/${attempt.model}</td>
                    <td class="nowrap"><span class="swatch kind-${kindClass(attempt.kind)}"></span>${attempt.kind}${attempt.hedge ? ' (hedge)' : ''}</td>
                    <td>${attempt.http_status ?? '—'}</td>
                    <td class="nowrap">+${formatMs(attempt.started_ms)}</td>
                    <td class="nowrap">${formatMs(attempt.latency_ms)}</td>
                    <td>${formatMs(attempt.first_token_ms)}${attempt.first_token_timeout_ms ? html` <span class="muted">(limit ${formatMs(attempt.first_token_timeout_ms)})</span>` : nothing}</td>
                    <td>${attempt.committed ? 'yes' : 'no'}</td>
                    <td>${formatUsd(attempt.cost_usd)}</td>
                    <td class="message">${description.attempts[index]}</td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>`}
  </section>`;
}

/** Targets of the plan that got no attempt, why and until when; none of their labels starts with "attempt". */
function skippedList(record: RequestRecord, description: RecordDescription) {
  if (!record.skipped || record.skipped.length === 0) return nothing;
  return html`<ul class="skipped" aria-label="Skipped targets">
    ${record.skipped.map(
      (skip, index) => html`<li data-skipped=${`${skip.connection}/${skip.model}`}>
        skipped: <span class="mono">${skip.connection}/${skip.model}</span> — ${description.skipped[index]}${skip.until_ms === undefined
          ? nothing
          : html` until <time datetime=${new Date(skip.until_ms).toISOString()} title=${new Date(skip.until_ms).toISOString()}>${new Date(skip.until_ms).toLocaleTimeString()}</time>
              <span class="muted">(${relativeToTheSecond(skip.until_ms)})</span>`}
      </li>`,
    )}
  </ul>`;
}

/** Each failure kind of the records (docs/errors.md) has its colour in styles.css. */
function kindClass(kind: string): string {
  return (Object.values(FailureKind) as string[]).includes(kind) ? kind : 'other';
}
