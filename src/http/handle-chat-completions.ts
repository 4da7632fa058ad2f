import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import { deadlineFromHeaders } from '../engine/deadline.js';
import { finalError } from '../engine/final-error.js';
import { routeLabel, runChat, type ChatOutcome, type EngineDeps } from '../engine/run-chat.js';
import type { AttemptRecord } from '../engine/attempt-record.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { parseOpenAiChat } from '../inbound/parse-openai-chat.js';
import { OpenAiStreamWriter } from '../outbound/openai-stream-writer.js';
import { renderOpenAiChat } from '../outbound/render-openai-chat.js';
import { authenticateRequest, authorizeRoute } from '../keys/authenticate.js';
import type { KeyCache } from '../keys/key-cache.js';
import { redactSecrets } from '../records/redact-secrets.js';
import type { RequestTrace } from '../records/request-trace.js';
import { resolveRoute, type ResolvedTarget } from '../routing/resolve-route.js';
import type { Metrics } from '../telemetry/metrics.js';
import { Heartbeat } from './heartbeat.js';
import { readJsonBody } from './read-json-body.js';
import { retryHeaders, sendJson } from './send.js';
import { writeSse } from './write-sse.js';

export interface ChatHandlerDeps {
  config(): Config;
  engine: EngineDeps;
  metrics: Metrics;
  keys: KeyCache;
}

/**
 * `POST /v1/chat/completions`: parse, route, run the attempt loop, render in the OpenAI dialect.
 * Everything learned along the way goes into `trace`, which becomes the request's record.
 */
export async function handleChatCompletions(
  request: IncomingMessage,
  response: ServerResponse,
  trace: RequestTrace,
  deps: ChatHandlerDeps,
): Promise<void> {
  const config = deps.config();
  // Who is asking is settled before anything else is read: a refused caller costs nothing.
  const principal = await authenticateRequest(request.headers, { mode: config.auth.mode, keys: deps.keys, nowMs: trace.startedAtMs });
  if (principal.kind === 'key') {
    trace.keyName = principal.key.name;
    trace.keyId = principal.key.id;
  }
  const body = await readJsonBody(request, config.server.max_body_bytes);
  const { requestedModel, request: chat } = parseOpenAiChat(body);
  trace.modelRequested = requestedModel;
  trace.stream = chat.stream;
  const route = resolveRoute(config, requestedModel);
  authorizeRoute(principal, route.name);
  trace.route = route.name;
  trace.routeLabel = routeLabel(route);
  const deadlineAtMs = deadlineFromHeaders(request.headers, route.policy.timeouts.total_ms, trace.startedAtMs);
  trace.deadlineAtMs = deadlineAtMs;
  if (Number(request.headers['x-stainless-retry-count']) > 0) deps.metrics.callerRetries.inc({ route: trace.routeLabel });

  const caller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) caller.abort();
  });
  // A stream waiting long for its first content keeps the caller's connection alive meanwhile.
  const heartbeat = chat.stream ? new Heartbeat(response, route.policy.timeouts.heartbeat_ms) : undefined;
  const writer = new OpenAiStreamWriter({ fallbackId: `chatcmpl-${trace.id}`, model: requestedModel, includeUsage: chat.includeUsage });

  let outcome: ChatOutcome;
  try {
    outcome = await runChat(
      { request: chat, route, callerSignal: caller.signal, requestStartedAtMs: trace.startedAtMs, deadlineAtMs, waited: trace.waited },
      deps.engine,
    );
  } catch (error) {
    heartbeat?.stop();
    if (!(error instanceof AllAttemptsFailedError)) throw error;
    trace.attempts = error.attempts;
    if (caller.signal.aborted) {
      trace.fail('cancelled', 499, 'cancelled');
      return;
    }
    const final = finalError(error.attempts, error.coolingEndsInMs);
    // After a heartbeat the caller already has a 200; the failure goes in-band.
    trace.fail('failed', response.headersSent ? 200 : final.status, final.code);
    const secrets = knownSecrets(config);
    const envelope = {
      message: final.message,
      type: final.type,
      param: null,
      code: final.code,
      request_id: trace.id,
      attempts: error.attempts.map((attempt) => describeAttempt(attempt, secrets)),
    };
    if (response.headersSent) {
      // The heartbeat already sent a 200: the failure can only be told in-band.
      response.end(writer.error({ kind: final.code, message: final.message }));
      return;
    }
    sendJson(response, final.status, { error: envelope }, retryHeaders(final.retryAfterMs));
    return;
  }

  trace.attempts = outcome.attempts;
  trace.served = outcome.served;
  const headers = servedHeaders(outcome.served, outcome.attempts.length);
  if (outcome.type === 'result') {
    trace.firstTokenAtMs = Date.now();
    sendJson(response, 200, renderOpenAiChat(outcome.result, `chatcmpl-${trace.id}`), headers);
    return;
  }
  heartbeat?.stop();
  const ended = await writeSse(response, headers, outcome.events, writer, () => {
    trace.firstTokenAtMs ??= Date.now();
  });
  if (ended === 'interrupted') trace.fail('interrupted', 200, 'stream_interrupted');
  else if (ended === 'cancelled') trace.fail('cancelled', 499, 'cancelled');
}

function servedHeaders(served: ResolvedTarget, attempts: number): Record<string, string> {
  return {
    'x-switchyard-served-by': `${served.connectionName}/${served.routedModel}`,
    'x-switchyard-attempts': String(attempts),
  };
}

function describeAttempt(attempt: AttemptRecord, secrets: ReadonlySet<string>): Record<string, unknown> {
  return {
    n: attempt.n,
    target: `${attempt.connection}/${attempt.model}`,
    kind: attempt.kind,
    status: attempt.httpStatus ?? null,
    latency_ms: attempt.latencyMs,
    ...(attempt.message === undefined ? {} : { message: redactSecrets(attempt.message, secrets) }),
  };
}
