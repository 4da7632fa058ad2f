import { chainBreak } from '../core/audit-chain.js';
import type { AuditRow } from '../core/audit-entry.js';
import { callAdmin, errorMessage, type AdminClientOptions } from './admin-client.js';
import { formatTable } from './format-table.js';

export interface AuditListOptions extends AdminClientOptions {
  since?: string;
  until?: string;
  actor?: string;
  action?: string;
  target?: string;
  /** A row's seq: list older rows (the last seq of the previous page). */
  before?: string;
  /** As typed: the gateway checks it and names the problem. */
  limit?: string;
}

export interface AuditExportOptions extends AdminClientOptions {
  format: string;
}

/** Rows per page when the whole trail is read: the most the endpoint gives at once. */
const PAGE_ROWS = 1_000;

/** `switchyard audit list`: the matching rows, newest first, one line each; returns the exit code. */
export async function runAuditList(options: AuditListOptions): Promise<number> {
  const query = new URLSearchParams();
  for (const name of ['since', 'until', 'actor', 'action', 'target', 'before', 'limit'] as const) {
    const value = options[name];
    if (value !== undefined) query.set(name, value);
  }
  const page = await auditPage(query, options);
  if (typeof page === 'string') return fail(page);
  if (page.length === 0) {
    console.log('no audit rows match');
    return 0;
  }
  console.log(
    formatTable(
      ['seq', 'at', 'actor', 'role', 'action', 'target', 'request'],
      page.map((row) => [String(row.seq), row.at, row.actor.name, row.actor.role ?? '-', row.action, `${row.target.kind} ${row.target.id ?? '-'}`, row.request_id ?? '-']),
    ),
  );
  return 0;
}

/** `switchyard audit export --format jsonl`: every row, oldest first, one JSON document a line; returns the exit code. */
export async function runAuditExport(options: AuditExportOptions): Promise<number> {
  if (options.format !== 'jsonl') return fail(`--format must be jsonl (got "${options.format}")`);
  const walked = await walkTrail(options, (rows) => {
    process.stdout.write(rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    return undefined;
  });
  return typeof walked === 'string' ? fail(walked) : 0;
}

/**
 * `switchyard audit verify`: reads the whole trail oldest first and checks every link (each row's
 * hash against its contents, its `prev_hash` against the row before, `seq` without a gap). Exit 0
 * when it holds, 1 naming the first row that breaks it, 2 when the trail could not be read.
 */
export async function runAuditVerify(options: AdminClientOptions): Promise<number> {
  let previous: AuditRow | undefined;
  let first: AuditRow | undefined;
  let verified = 0;
  const walked = await walkTrail(options, (rows) => {
    for (const row of rows) {
      const problem = chainBreak(previous, row);
      if (problem) return { row, problem };
      first ??= row;
      previous = row;
      verified++;
    }
    return undefined;
  });
  if (typeof walked === 'string') {
    console.error(walked);
    return 2;
  }
  if (walked) {
    const { row, problem } = walked;
    console.error(`the audit chain breaks at seq ${row.seq} (${row.action}, ${row.at}): ${problem}`);
    console.error(verified === 0 ? 'no row before it was verified' : `the ${verified} rows before it (seq ${first!.seq} to ${previous!.seq}) are unbroken`);
    return 1;
  }
  if (!first || !previous) {
    console.log('the audit trail is empty: nothing to verify');
    return 0;
  }
  console.log(`verified ${verified} audit rows, seq ${first.seq} to ${previous.seq}: the chain is unbroken`);
  if (first.seq > 1) console.log(`it starts at seq ${first.seq} (${first.at}): the rows before it were pruned (audit.retention_days), so its prev_hash is taken as given`);
  return 0;
}

/**
 * Reads the trail oldest first, a page at a time, handing each page to `visit` until it returns
 * something (which this resolves with) or the trail ends (undefined); a string when the gateway
 * could not be read.
 */
async function walkTrail<T>(options: AdminClientOptions, visit: (rows: readonly AuditRow[]) => T | undefined): Promise<T | string | undefined> {
  for (let after = 0; ; ) {
    const page = await auditPage(new URLSearchParams({ after: String(after), limit: String(PAGE_ROWS) }), options);
    if (typeof page === 'string') return page;
    const found = visit(page);
    if (found !== undefined) return found;
    if (page.length < PAGE_ROWS) return undefined;
    after = page.at(-1)!.seq;
  }
}

/** One page of `GET /admin/audit`, or what went wrong as a sentence. */
async function auditPage(query: URLSearchParams, options: AdminClientOptions): Promise<AuditRow[] | string> {
  const answer = await callAdmin('GET', `/admin/audit${query.size > 0 ? `?${query}` : ''}`, options);
  if (!answer.ok) return answer.error;
  if (answer.status !== 200) return `the gateway answered ${answer.status}: ${errorMessage(answer.text)}`;
  try {
    const parsed = JSON.parse(answer.text) as { data?: unknown } | null;
    if (Array.isArray(parsed?.data)) return parsed.data as AuditRow[];
  } catch {
    // Falls through to "not a list".
  }
  return `the gateway's answer is not a list of audit rows: ${answer.text.slice(0, 200)}`;
}

function fail(message: string): number {
  console.error(message);
  return 1;
}
