import type { RequestRecord } from '../core/request-record.js';
import { formatTable } from './format-table.js';
import { callAdmin, errorMessage, type AdminClientOptions } from './admin-client.js';
import { dollars, milliseconds } from './requests-show.js';

export interface RequestsListOptions extends AdminClientOptions {
  route?: string;
  status?: string;
  /** One origin, or `all`; the gateway lists callers' when not given. */
  origin?: string;
  /** A key's name. */
  key?: string;
  /** A team's id or name. */
  team?: string;
  /** A request id: list what comes after it (the last id of the previous page). */
  before?: string;
  /** As typed: the gateway checks it and names the problem. */
  limit?: string;
}

/** Lists request records, newest first, one line each; returns the exit code. */
export async function runRequestsList(options: RequestsListOptions): Promise<number> {
  const query = new URLSearchParams();
  if (options.route !== undefined) query.set('route', options.route);
  if (options.status !== undefined) query.set('status', options.status);
  if (options.origin !== undefined) query.set('origin', options.origin);
  if (options.key !== undefined) query.set('key', options.key);
  if (options.team !== undefined) query.set('team', options.team);
  if (options.before !== undefined) query.set('before', options.before);
  if (options.limit !== undefined) query.set('limit', options.limit);
  const answer = await callAdmin('GET', `/admin/requests${query.size > 0 ? `?${query}` : ''}`, options);
  if (!answer.ok) {
    console.error(answer.error);
    return 1;
  }
  if (answer.status !== 200) {
    console.error(`the gateway answered ${answer.status}: ${errorMessage(answer.text)}`);
    return 1;
  }
  const records = parseList(answer.text);
  if (!records) {
    console.error(`the gateway's answer is not a list of request records: ${answer.text.slice(0, 200)}`);
    return 1;
  }
  if (records.length === 0) {
    console.log('no request records match');
    return 0;
  }
  console.log(
    formatTable(
      ['request', 'created', 'origin', 'route', 'status', 'http', 'attempts', 'served by', 'latency', 'cost'],
      records.map((record) => [
        record.id,
        record.created_at,
        record.origin,
        routeOf(record),
        record.status,
        String(record.http_status),
        String(record.attempts.length),
        record.served ? `${record.served.connection}/${record.served.model}` : '-',
        milliseconds(record.latency_ms),
        dollars(record.cost_usd),
      ]),
    ),
  );
  return 0;
}

/** What the request named: its route (or `connection/model`); a request refused before any route shows the model it asked for. */
function routeOf(record: RequestRecord): string {
  if (record.route !== null) return record.route;
  return record.model_requested === null ? 'no route' : `no route (${record.model_requested})`;
}

function parseList(text: string): RequestRecord[] | undefined {
  try {
    const parsed = JSON.parse(text) as { data?: unknown } | null;
    if (Array.isArray(parsed?.data)) return parsed.data as RequestRecord[];
  } catch {
    // Falls through to "not a list".
  }
  return undefined;
}
