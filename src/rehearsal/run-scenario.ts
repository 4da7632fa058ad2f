import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config/schema.js';
import type { FailureKind } from '../core/failure-kind.js';
import type { RequestRecord } from '../core/request-record.js';
import { startMockProvider } from '../mock/mock-provider.js';
import type { RecordStore } from '../records/record-store.js';
import { FLAP_DOWN_MS } from './faults.js';
import type { Scenario } from './plan-scenarios.js';
import { scenarioConfig } from './scenario-config.js';

/** A flapping target gets a caller every this often, for this long (the down time and some after). */
const FLAP_EVERY_MS = 2_000;
const FLAP_TRAFFIC_MS = FLAP_DOWN_MS + 10_000;
/**
 * A call is given up after this (its gateway is then closed, cutting it): far past any first-byte
 * goal, and it bounds a scenario behind a silent target and a route's own long timeouts.
 */
export const CALL_TIMEOUT_MS = 60_000;

/** What one caller's request got, as it saw it and as the gateway recorded it. */
export interface CallerView {
  status: number;
  /** The error's `type`, when the answer was an error (a JSON one or an in-band frame). */
  errorType: string | null;
  /** `connection/model` of the target that answered, from `x-switchyard-served-by`. */
  servedBy: string | null;
  firstByteMs: number | null;
  endMs: number;
  /** A whole answer: a 200 stream that ended with `[DONE]` and no error. */
  answered: boolean;
  /** The stream ended as if whole (`[DONE]`, no error) though the gateway recorded it as not. */
  endedFalsely: boolean;
  /** The answer said to send again: a `retry-after`, or `x-should-retry: true`. */
  retryAdvised: boolean;
  /** The gateway's attempts, in order, from its record. */
  attempts: AttemptView[];
  costUsd: number | null;
  /** When the caller sent it, from the scenario's start. */
  sentAtMs: number;
}

/** One upstream attempt of a call: whom it went to and how it ended, as the provider answered. */
export interface AttemptView {
  /** `connection/model` as the config names it. */
  target: string;
  kind: FailureKind;
  httpStatus: number | null;
  /** The provider's own error type or code (`overloaded_error`, `RESOURCE_EXHAUSTED`, `ThrottlingException`, …). */
  errorType: string | null;
}

/** A gateway serving a scenario's config file, listening on loopback. */
export interface ScenarioGateway {
  url: string;
  records: Pick<RecordStore, 'flush' | 'list'>;
  close(): Promise<void>;
}

/**
 * Starts a whole gateway on a config file, its `provider: mock` connections served by the mock
 * at `mockUrl`: the composition root's own `createApp`, handed down (a rehearsal stands below it).
 */
export type StartScenarioGateway = (configFile: string, mockUrl: string) => Promise<ScenarioGateway>;

export interface ScenarioOutcome {
  scenario: Scenario;
  /** One call; for `flapping`, one every 2 s for 30 s. */
  calls: CallerView[];
  /** Requests the mock got, over the whole scenario. */
  upstreamCalls: number;
  /**
   * For `flapping`: when the target came back, from the scenario's start — 20 s after its first
   * request reached the mock (the fault's window starts there), not after the first caller left.
   */
  recoveredAtMs?: number;
}

/**
 * Runs one scenario on a gateway of its own, in this process, with fresh health: a mock provider
 * of its own for every connection, the config from `scenarioConfig`, and a caller's request of
 * the route — a streamed chat, or one input to embed on an embedding route; for `flapping`, one
 * every 2 s while the target is down and for 10 s after.
 */
export async function runScenario(config: Config, scenario: Scenario, where: { directory: string; index: number; startGateway: StartScenarioGateway }): Promise<ScenarioOutcome> {
  const mock = await startMockProvider();
  try {
    const file = join(where.directory, `scenario-${where.index}.json`);
    writeFileSync(file, JSON.stringify(scenarioConfig(config, scenario, mock.url)));
    const gateway = await where.startGateway(file, mock.url);
    try {
      const startedAt = performance.now();
      const startedAtEpochMs = Date.now();
      const call = async (): Promise<CallerView> => {
        const view = await callRoute(gateway.url, scenario, performance.now() - startedAt);
        await gateway.records.flush();
        return withRecord(view, await gateway.records.list({}), scenario.route);
      };
      if (scenario.fault !== 'flapping') return { scenario, calls: [await call()], upstreamCalls: mock.attempts.length };
      const calls = await everyTwoSeconds(call);
      const firstFlap = mock.attempts.find((attempt) => attempt.directives.flap_down_s !== undefined);
      return { scenario, calls, upstreamCalls: mock.attempts.length, ...(firstFlap ? { recoveredAtMs: firstFlap.atMs - startedAtEpochMs + FLAP_DOWN_MS } : {}) };
    } finally {
      await gateway.close();
    }
  } finally {
    await mock.close();
  }
}

/** Callers on a fixed schedule, whatever became of the last (open loop). */
async function everyTwoSeconds(call: () => Promise<CallerView>): Promise<CallerView[]> {
  const calls: Promise<CallerView>[] = [];
  for (let at = 0; at <= FLAP_TRAFFIC_MS; at += FLAP_EVERY_MS) {
    calls.push(call());
    await sleep(FLAP_EVERY_MS);
  }
  return Promise.all(calls);
}

/** A caller's request of the route: a streamed chat, or for an embedding route one input to embed. */
function callerRequest({ route, request }: Scenario): { path: string; body: object } {
  return request === 'embeddings'
    ? { path: '/v1/embeddings', body: { model: route, input: 'A rehearsal.' } }
    : { path: '/v1/chat/completions', body: { model: route, stream: true, max_tokens: 256, messages: [{ role: 'user', content: 'A rehearsal: answer with a few words.' }] } };
}

/** Whether the 200 body is a whole answer: a stream that ended with `[DONE]`, or embeddings' JSON with its vectors. */
function isWhole(text: string, request: Scenario['request']): boolean {
  if (request === 'chat') return text.includes('data: [DONE]');
  try {
    return Array.isArray((JSON.parse(text) as { data?: unknown }).data);
  } catch {
    return false;
  }
}

async function callRoute(url: string, scenario: Scenario, sentAtMs: number): Promise<Omit<CallerView, 'attempts' | 'costUsd' | 'endedFalsely'> & { id: string | null }> {
  const { path, body } = callerRequest(scenario);
  const started = performance.now();
  let firstByteMs: number | null = null;
  let text = '';
  let response: Response | undefined;
  try {
    response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) {
      const part = decoder.decode(chunk as Uint8Array, { stream: true });
      // A heartbeat's comment is not a byte of the answer.
      if (firstByteMs === null && part.split('\n').some((line) => line.startsWith('data:') || line.startsWith('{'))) firstByteMs = performance.now() - started;
      text += part;
    }
  } catch {
    // Given up: no answer within CALL_TIMEOUT_MS (status 0 when not even the head came).
    return { id: response?.headers.get('x-request-id') ?? null, status: response?.status ?? 0, errorType: 'no_answer', servedBy: null, firstByteMs, endMs: performance.now() - started, answered: false, retryAdvised: false, sentAtMs };
  }
  const endMs = performance.now() - started;
  const errorType = response.status === 200 ? inBandErrorType(text) : errorTypeOf(text);
  const servedBy = response.headers.get('x-switchyard-served-by');
  return {
    id: response.headers.get('x-request-id'),
    status: response.status,
    errorType,
    servedBy: servedBy === null ? null : operatorsName(servedBy),
    firstByteMs: firstByteMs ?? (response.status === 200 ? null : endMs),
    endMs,
    answered: response.status === 200 && errorType === null && isWhole(text, scenario.request),
    retryAdvised: response.headers.get('retry-after') !== null || response.headers.get('x-should-retry') === 'true',
    sentAtMs,
  };
}

/** The call's record (by its request id) read into what the verdicts need. */
function withRecord(view: Awaited<ReturnType<typeof callRoute>>, records: readonly RequestRecord[], route: string): CallerView {
  const { id, ...seen } = view;
  const record = records.find((candidate) => candidate.id === id) ?? records.find((candidate) => candidate.route === route);
  return {
    ...seen,
    attempts: (record?.attempts ?? []).map((attempt) => ({
      target: operatorsName(`${attempt.connection}/${attempt.model}`),
      kind: attempt.kind,
      httpStatus: attempt.http_status,
      errorType: attempt.error_type,
    })),
    costUsd: record?.cost_usd ?? null,
    endedFalsely: seen.answered && record !== undefined && record.status !== 'ok',
  };
}

/** `connection/model` as the operator's config names it: without a stand-in's `~dialect` or the fault's directives. */
export function operatorsName(target: string): string {
  const [connection = '', ...model] = target.split('/');
  return `${connection.split('~')[0]}/${model.join('/').split('?')[0]}`;
}

function inBandErrorType(sse: string): string | null {
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const type = errorTypeOf(line.slice(6));
    if (type !== null) return type;
  }
  return null;
}

function errorTypeOf(json: string): string | null {
  try {
    const error = (JSON.parse(json) as { error?: { type?: unknown; code?: unknown } }).error;
    return error ? String(error.type ?? error.code ?? 'error') : null;
  } catch {
    return null;
  }
}
