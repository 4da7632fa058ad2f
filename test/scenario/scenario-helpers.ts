/**
 * Small helpers shared by the scenario tests: reading SSE bodies, the admin records API and the
 * Prometheus text. Not a test file itself (vitest collects only `*.test.ts`).
 */
import type { RequestRecord } from '../../src/core/request-record.js';
import type { MockAttempt } from '../../src/mock/mock-provider.js';

export const ADMIN_TOKEN = 'scenario-admin-token';

export const hello = [{ role: 'user' as const, content: 'hi' }];

/** The `data:` payloads of an SSE body, in order (`[DONE]` included as the raw string). */
export function sseData(body: string): string[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length));
}

/** The concatenated `delta.content` of an OpenAI SSE body. */
export function sseContent(body: string): string {
  return sseData(body)
    .filter((data) => data.startsWith('{'))
    .map((data) => (JSON.parse(data) as { choices?: { delta?: { content?: string | null } }[] }).choices?.[0]?.delta?.content ?? '')
    .join('');
}

/** The parsed error events (`data: {"error": …}`) of an SSE body. */
export function sseErrors(body: string): { message: string; type: string; code: string | null }[] {
  return sseData(body)
    .filter((data) => data.startsWith('{'))
    .map((data) => JSON.parse(data) as { error?: { message: string; type: string; code: string | null } })
    .flatMap((payload) => (payload.error ? [payload.error] : []));
}

export function countDone(body: string): number {
  return sseData(body).filter((data) => data === '[DONE]').length;
}

/** `GET /admin/requests/:id` with the scenario admin token. */
export async function fetchRecord(gatewayUrl: string, id: string): Promise<RequestRecord> {
  const response = await fetch(`${gatewayUrl}/admin/requests/${encodeURIComponent(id)}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    signal: AbortSignal.timeout(5_000),
  });
  if (response.status !== 200) throw new Error(`GET /admin/requests/${id} → ${response.status}: ${await response.text()}`);
  return (await response.json()) as RequestRecord;
}

/** `GET /admin/requests?<query>` with the scenario admin token: the records, newest first. */
export async function listRecords(gatewayUrl: string, query: string): Promise<RequestRecord[]> {
  const response = await fetch(`${gatewayUrl}/admin/requests?${query}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    signal: AbortSignal.timeout(5_000),
  });
  if (response.status !== 200) throw new Error(`GET /admin/requests?${query} → ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { data: RequestRecord[] }).data;
}

export async function metricsText(gatewayUrl: string): Promise<string> {
  const response = await fetch(`${gatewayUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
  if (response.status !== 200) throw new Error(`GET /metrics → ${response.status}`);
  return response.text();
}

/**
 * The value of one sample in Prometheus text (`name{a="x",b="y"} 3`), matching the given labels
 * exactly as a subset; the sum over every matching series, or undefined when none matches.
 */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const seriesLabels = parseLabels(match[3] ?? '');
    if (!Object.entries(labels).every(([key, value]) => seriesLabels[key] === value)) continue;
    total = (total ?? 0) + Number(match[4]);
  }
  return total;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of text.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
    labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return labels;
}

/** Polls an observable condition with a bound; throws when it does not hold in time. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits (bounded) until the mock has acted on the attempt in full, and returns its outcome. */
export async function settledOutcome(attempt: MockAttempt, timeoutMs = 10_000): Promise<string> {
  await eventually(() => attempt.outcome !== undefined, timeoutMs, `mock attempt #${attempt.n} (${attempt.model}) to settle`);
  return attempt.outcome!;
}
