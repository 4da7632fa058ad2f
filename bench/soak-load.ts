import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { sseData } from '../test/scenario/scenario-helpers.js';

/** What became of one request of the soak. */
export interface RequestOutcome {
  /** When it was due, seconds after the load started: the phase it belongs to. */
  dueS: number;
  stream: boolean;
  /** From sending it to the end of its body (or its failure). */
  latencyMs: number;
  /** For a stream, the longest wait for the next chunk after the head or the last chunk; 0 otherwise. */
  maxGapMs: number;
  /** The gateway's `x-request-id`, whenever an answer came back (errors too). */
  requestId: string | undefined;
  /** Undefined when answered: a 200 with a whole answer, a stream ending in `data: [DONE]`. Else what went wrong. */
  error: string | undefined;
}

export interface LoadSpec {
  /** The replicas in the load now, sent to in turn (a replica taken out for a fault is not). */
  urls: () => readonly string[];
  key: string;
  /** The route every request names. */
  route: string;
  rps: number;
  durationS: number;
  onOutcome(outcome: RequestOutcome): void;
}

export interface LoadSummary {
  /** Requests the schedule called for: rps × duration. */
  scheduled: number;
  sent: number;
  /** From the first request to the last one settling. */
  elapsedS: number;
  /** The longest a request was sent after it was due: the generator (this process) falling behind. */
  maxSendLagMs: number;
}

/** A caller waits this long for a whole answer before giving up on it (and counting it as an error). */
export const requestTimeoutMs = 30_000;

/** The send loop wakes this often and sends whatever has come due. */
const tickMs = 5;

/**
 * Open-loop load: request i is due at i / rps seconds and is sent then whether or not earlier
 * ones were answered, so a stalled gateway meets the load a real fleet would (a closed loop would
 * slow down with it and hide the stall). Request i goes to replica i mod N and alternates between
 * non-streaming and streaming on each replica. `abort` stops sending and cuts what is in flight;
 * `inFlightTo` counts the requests a replica has not finished answering.
 */
export function startOpenLoopLoad(spec: LoadSpec): { finished: Promise<LoadSummary>; abort(): void; inFlightTo(url: string): number } {
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const aborted = new AbortController();
  const bodies = { plain: chatBody(spec.route, false), stream: chatBody(spec.route, true) };
  const headers = { authorization: `Bearer ${spec.key}`, 'content-type': 'application/json' };
  const scheduled = Math.round(spec.rps * spec.durationS);
  const startedAtMs = performance.now();
  let sent = 0;
  let inFlight = 0;
  const inFlightByUrl = new Map<string, number>();
  let maxSendLagMs = 0;
  let allSettled: () => void = () => undefined;
  const settledOnce = new Promise<void>((resolve) => (allSettled = resolve));

  const send = (index: number) => {
    const dueMs = (index * 1_000) / spec.rps;
    maxSendLagMs = Math.max(maxSendLagMs, performance.now() - startedAtMs - dueMs);
    const urls = spec.urls();
    const url = urls[index % urls.length]!;
    const stream = Math.floor(index / urls.length) % 2 === 1;
    inFlight += 1;
    inFlightByUrl.set(url, (inFlightByUrl.get(url) ?? 0) + 1);
    void sendOne(`${url}/v1/chat/completions`, stream ? bodies.stream : bodies.plain, stream)
      .then((outcome) => spec.onOutcome({ dueS: dueMs / 1_000, stream, ...outcome }))
      .finally(() => {
        inFlight -= 1;
        inFlightByUrl.set(url, inFlightByUrl.get(url)! - 1);
        if (inFlight === 0 && (sent === scheduled || aborted.signal.aborted)) allSettled();
      });
  };

  const sendOne = async (url: string, body: string, stream: boolean): Promise<Omit<RequestOutcome, 'dueS' | 'stream'>> => {
    const sentAtMs = performance.now();
    let requestId: string | undefined;
    let status: number | undefined;
    let maxGapMs = 0;
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(requestTimeoutMs), aborted.signal]);
      const response = await request(url, { method: 'POST', headers, body, dispatcher, signal });
      status = response.statusCode;
      const id = response.headers['x-request-id'];
      requestId = typeof id === 'string' ? id : undefined;
      let text = '';
      let lastChunkAtMs = performance.now();
      for await (const chunk of response.body) {
        const nowMs = performance.now();
        maxGapMs = Math.max(maxGapMs, nowMs - lastChunkAtMs);
        lastChunkAtMs = nowMs;
        text += (chunk as Buffer).toString();
      }
      const error = response.statusCode === 200 ? incompleteAnswer(text, stream) : statusError(response.statusCode, text);
      return { latencyMs: performance.now() - sentAtMs, maxGapMs: stream ? maxGapMs : 0, requestId, error };
    } catch (error) {
      // After the head, a failure is a body cut short: for a stream, an answer the caller saw break off.
      const what = status === undefined ? failure(error) : `body cut after a ${status} head: ${failure(error)}`;
      return { latencyMs: performance.now() - sentAtMs, maxGapMs: stream ? maxGapMs : 0, requestId, error: what };
    }
  };

  const timer = setInterval(() => {
    const dueCount = Math.min(scheduled, Math.floor(((performance.now() - startedAtMs) * spec.rps) / 1_000) + 1);
    while (sent < dueCount) send(sent++);
    if (sent === scheduled) {
      clearInterval(timer);
      if (inFlight === 0) allSettled();
    }
  }, tickMs);

  const finished = settledOnce.then(async () => {
    clearInterval(timer);
    await dispatcher.close();
    return { scheduled, sent, elapsedS: (performance.now() - startedAtMs) / 1_000, maxSendLagMs };
  });
  return {
    finished,
    inFlightTo: (url) => inFlightByUrl.get(url) ?? 0,
    abort() {
      clearInterval(timer);
      aborted.abort();
      if (inFlight === 0) allSettled();
    },
  };
}

function chatBody(route: string, stream: boolean): string {
  return JSON.stringify({ model: route, messages: [{ role: 'user', content: 'Count for me, one word per number.' }], ...(stream ? { stream: true } : {}) });
}

/** Undefined for a whole answer; otherwise what is missing from a 200. */
function incompleteAnswer(text: string, stream: boolean): string | undefined {
  if (!stream) {
    const content = (parsed(text) as { choices?: { message?: { content?: unknown } }[] } | undefined)?.choices?.[0]?.message?.content;
    return typeof content === 'string' ? undefined : 'a 200 without a message';
  }
  const events = sseData(text);
  const errorEvent = events.map((data) => (parsed(data) as { error?: { code?: unknown } } | undefined)?.error).find((error) => error !== undefined);
  if (errorEvent !== undefined) return `stream error event ${String(errorEvent.code)}`;
  return events.at(-1) === '[DONE]' ? undefined : 'stream cut before [DONE]';
}

function statusError(status: number, text: string): string {
  const code = (parsed(text) as { error?: { code?: unknown } } | undefined)?.error?.code;
  return `${status} ${typeof code === 'string' ? code : '(no error code)'}`;
}

function failure(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${requestTimeoutMs / 1_000} s`;
  if (error instanceof Error && error.name === 'AbortError') return 'aborted (the soak was stopped)';
  const code = (error as { code?: unknown }).code;
  return `connection error ${typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)}`;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
