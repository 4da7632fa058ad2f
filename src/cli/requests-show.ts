import type { AttemptRecordEntry, RecordUsage, RequestRecord, SkippedTargetEntry } from '../core/request-record.js';
import { describeRecord } from '../records/describe-record.js';
import { relativeToTheSecond } from '../records/relative-to-the-second.js';
import { formatTable } from './format-table.js';
import { callAdmin, errorMessage, type AdminClientOptions } from './admin-client.js';

const MESSAGE_WIDTH = 100;

/** Fetches one request record from the admin API and prints its timeline; returns the exit code. */
export async function runRequestsShow(id: string, options: AdminClientOptions): Promise<number> {
  const answer = await callAdmin('GET', `/admin/requests/${encodeURIComponent(id)}`, options);
  if (!answer.ok) {
    console.error(answer.error);
    return 1;
  }
  if (answer.status === 404) {
    console.error(`no request with id ${id} at ${options.url}`);
    return 1;
  }
  if (answer.status !== 200) {
    console.error(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
    return 1;
  }
  const record = parseRecord(answer.text);
  if (!record) {
    console.error(`the gateway's answer is not a request record: ${answer.text.slice(0, 200)}`);
    return 1;
  }
  console.log(formatTimeline(record));
  return 0;
}

/** The record as the dashboard's request page shows it: the error, each attempt and why the gateway moved on, each skipped target. */
function formatTimeline(record: RequestRecord, nowMs = Date.now()): string {
  const description = describeRecord(record);
  const served = record.served ? `${record.served.connection}/${record.served.model} (${record.served.provider})` : '-';
  const header: [string, string][] = [
    ['request', record.id],
    ['created', record.created_at],
    ['status', `${record.status}${record.error_code ? ` (${record.error_code})` : ''}`],
    ['http status', String(record.http_status)],
    // Whole, unlike a table cell: it is what the caller was told.
    ...(description.error === null ? [] : [['error', description.error.replace(/\s+/g, ' ')] as [string, string]]),
    ['route', `${record.route ?? 'no route'}${record.model_requested && record.model_requested !== record.route ? ` (model ${record.model_requested})` : ''}`],
    ['served by', served],
    ['stream', record.stream ? 'yes' : 'no'],
    ['latency', milliseconds(record.latency_ms)],
    ['first token', milliseconds(record.first_token_ms)],
    ['added latency', milliseconds(record.added_latency_ms)],
    ['usage', usage(record.usage)],
    ['cost', dollars(record.cost_usd)],
  ];
  if (record.key_name) header.push(['key', record.key_name]);
  if (record.deadline_ms !== null) header.push(['deadline', milliseconds(record.deadline_ms)]);
  const labelWidth = Math.max(...header.map(([label]) => label.length));
  const lines = header.map(([label, value]) => `${label.padEnd(labelWidth)}  ${value}`);
  const attempts =
    record.attempts.length === 0
      ? `(no attempts: ${record.skipped?.length ? 'every target of the route was passed over' : 'the gateway answered without calling a provider'})`
      : formatTable(
          ['#', 'start', 'target', 'kind', 'http', 'latency', 'first token', 'committed', 'usage', 'cost', 'why the gateway moved on'],
          record.attempts.map((attempt, index) => attemptRow(attempt, description.attempts[index]!)),
        );
  const skipped = record.skipped?.length
    ? `\n\nskipped targets\n${formatTable(['target', 'why', 'until'], record.skipped.map((skip, index) => skipRow(skip, description.skipped[index]!, nowMs)))}`
    : '';
  return `${lines.join('\n')}\n\n${attempts}${skipped}`;
}

function attemptRow(attempt: AttemptRecordEntry, movedOn: string): string[] {
  return [
    `#${attempt.n}`,
    `+${Math.round(attempt.started_ms)} ms`,
    `${attempt.connection}/${attempt.model}`,
    attempt.kind,
    attempt.http_status === null ? '-' : String(attempt.http_status),
    milliseconds(attempt.latency_ms),
    milliseconds(attempt.first_token_ms),
    attempt.committed ? 'yes' : 'no',
    // Each attempt's own: a fallback that had to write the cache its primary held shows it here.
    usage(attempt.usage),
    dollars(attempt.cost_usd),
    oneLine(movedOn),
  ];
}

function skipRow(skip: SkippedTargetEntry, why: string, nowMs: number): string[] {
  const until = skip.until_ms === undefined ? '-' : `${new Date(skip.until_ms).toISOString()} (${relativeToTheSecond(skip.until_ms, nowMs)})`;
  return [`${skip.connection}/${skip.model}`, why, until];
}


export function milliseconds(value: number | null): string {
  return value === null ? '-' : `${Math.round(value)} ms`;
}

export function dollars(value: number | null): string {
  return value === null ? '-' : `$${value.toFixed(6)}`;
}

function usage(value: RecordUsage | null): string {
  if (!value) return '-';
  const parts = [`${value.input_tokens} in`, `${value.output_tokens} out`];
  if (value.cache_read_tokens) parts.push(`${value.cache_read_tokens} cache read`);
  if (value.cache_write_tokens) {
    const hour = value.cache_write_1h_tokens ? ` (${value.cache_write_1h_tokens} for 1 h)` : '';
    parts.push(`${value.cache_write_tokens} cache write${hour}`);
  }
  if (value.reasoning_tokens) parts.push(`${value.reasoning_tokens} reasoning`);
  return `${parts.join(' / ')}${value.estimated ? ' (estimated)' : ''}`;
}

/** Table cells must stay on one line and the table narrow enough to read. */
function oneLine(message: string): string {
  const flat = message.replace(/\s+/g, ' ').trim();
  return flat.length > MESSAGE_WIDTH ? `${flat.slice(0, MESSAGE_WIDTH - 1)}…` : flat;
}

function parseRecord(text: string): RequestRecord | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<RequestRecord> | null;
    if (parsed && typeof parsed.id === 'string' && Array.isArray(parsed.attempts)) return parsed as RequestRecord;
  } catch {
    // Falls through to "not a record".
  }
  return undefined;
}
