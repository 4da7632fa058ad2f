import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestRecord } from '../../../src/core/request-record.js';
import { postChat, startGateway, type TestGateway } from '../../support/start-gateway.js';
import { ADMIN_TOKEN, eventually, hello, listRecords as listRecordsOf, metricValue, metricsText } from '../scenario-helpers.js';

// The key is refused once (401): the deployment turns structural, and the active probe finds it works again.
const MODEL_A = 'claude-a?status=401&times=1';

const directory = mkdtempSync(join(tmpdir(), 'switchyard-probe-origin-'));
const storePath = join(directory, 'store.db');
let gateway: TestGateway | undefined;

beforeAll(async () => {
  gateway = await startGateway(`
admin: { token: ${ADMIN_TOKEN} }
store: { kind: sqlite, path: "${storePath}" }
health: { probe_interval_s: 1 }
connections:
  conn-a: { provider: mock, dialect: anthropic }
  conn-b: { provider: mock, dialect: openai }
routes:
  keyed:
    targets:
      - { connection: conn-a, model: "${MODEL_A}" }
      - { connection: conn-b, model: standby-b }
`);
});
afterAll(async () => {
  await gateway?.close();
  rmSync(directory, { recursive: true, force: true });
});

const listRecords = (query: string): Promise<RequestRecord[]> => listRecordsOf(gateway!.url, query);

it("a probe's record and spend row say origin probe and name its deployment as the route, it is listed and counted apart from callers, and callers' say caller", async () => {
  const { url, mock } = gateway!;
  const answer = await postChat(url, { model: 'keyed', messages: hello });
  await answer.text();
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-switchyard-served-by')).toBe('conn-b/standby-b');
  const callerId = answer.headers.get('x-request-id')!;

  // The probe, due one interval after the fault, reaches A with its minimal request and re-admits it.
  await eventually(async () => (await listRecords('origin=probe')).length > 0, 5_000, 'a probe record');
  const contacts = mock.attemptsFor('claude-a');
  expect(contacts).toHaveLength(2);
  expect(contacts[0]!.outcome).toBe('status 401');
  expect(contacts[1]!.body).toMatchObject({ max_tokens: 1 });
  expect(mock.attemptsFor('standby-b')).toHaveLength(1);

  const probes = await listRecords('origin=probe');
  expect(probes).toHaveLength(1);
  const probe = probes[0]!;
  // Asked of the deployment itself, as a caller's `connection/model` is: a route of null is a request refused before any route.
  expect(probe).toMatchObject({ origin: 'probe', probe: true, status: 'ok', key_name: null, route: `conn-a/${MODEL_A}`, served: { connection: 'conn-a' } });
  expect(probe.attempts).toEqual([expect.objectContaining({ connection: 'conn-a', model: MODEL_A, kind: 'ok' })]);

  const callers = await listRecords('origin=caller');
  expect(callers.map((record) => record.id)).toEqual([callerId]);
  expect(callers[0]).toMatchObject({ origin: 'caller', route: 'keyed', status: 'ok' });
  expect(callers[0]!.probe).toBeUndefined();
  // Listed only when asked for: the callers' requests are the default.
  expect((await listRecords('limit=10')).map((record) => record.id)).toEqual([callerId]);
  expect((await listRecords('origin=all&limit=10')).map((record) => record.id)).toEqual([probe.id, callerId]);

  // Metrics: the caller's request and attempts under origin="caller", the probe's under origin="probe".
  const text = await metricsText(url);
  expect(metricValue(text, 'switchyard_requests_total', { origin: 'caller', route: 'keyed', status: 'ok' })).toBe(1);
  expect(metricValue(text, 'switchyard_requests_total', { origin: 'probe', status: 'ok' })).toBe(1);
  expect(metricValue(text, 'switchyard_requests_total')).toBe(2);
  expect(metricValue(text, 'switchyard_attempts_total', { origin: 'caller' })).toBe(2);
  expect(metricValue(text, 'switchyard_attempts_total', { origin: 'probe', kind: 'ok' })).toBe(1);
  expect(metricValue(text, 'switchyard_attempts_per_request_count', { origin: 'caller' })).toBe(1);
  expect(metricValue(text, 'switchyard_attempts_per_request_count', { origin: 'probe' })).toBe(1);
  expect(metricValue(text, 'switchyard_failovers_total', { origin: 'caller', from: `conn-a/${MODEL_A}`, to: 'conn-b/standby-b' })).toBe(1);
  expect(metricValue(text, 'switchyard_failovers_total', { origin: 'probe' })).toBeUndefined();

  // Shutdown writes what is pending; the ledger holds each answered attempt under its origin.
  await gateway!.close();
  gateway = undefined;
  const store = new Database(storePath, { readonly: true });
  try {
    const spend = store.prepare('SELECT request_id, attempt_n, origin, probe, output_tokens FROM spend ORDER BY created_ms').all();
    expect(spend).toEqual([
      { request_id: callerId, attempt_n: 2, origin: 'caller', probe: 0, output_tokens: expect.any(Number) },
      { request_id: probe.id, attempt_n: 1, origin: 'probe', probe: 1, output_tokens: expect.any(Number) },
    ]);
    const requests = store.prepare('SELECT id, origin FROM requests ORDER BY created_ms').all();
    expect(requests).toEqual([
      { id: callerId, origin: 'caller' },
      { id: probe.id, origin: 'probe' },
    ]);
  } finally {
    store.close();
  }
});
