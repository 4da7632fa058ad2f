import type { IncomingMessage, ServerResponse } from 'node:http';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import type { Config } from '../config/schema.js';
import { deadlineFromHeaders } from '../engine/deadline.js';
import { finalError } from '../engine/final-error.js';
import { runChat, type ChatOutcome, type EngineDeps } from '../engine/run-chat.js';
import type { AttemptRecord } from '../engine/attempt-record.js';
import { parseOpenAiChat } from '../inbound/parse-openai-chat.js';
import { OpenAiStreamWriter } from '../outbound/openai-stream-writer.js';
import { renderOpenAiChat } from '../outbound/render-openai-chat.js';
import { resolveRoute, type ResolvedTarget } from '../routing/resolve-route.js';
import { readJsonBody } from './read-json-body.js';
import { retryHeaders, sendJson } from './send.js';
import { writeSse } from './write-sse.js';

export interface ChatHandlerDeps {
  config(): Config;
  engine: EngineDeps;
}

/** `POST /v1/chat/completions`: parse, route, run the attempt loop, render in the OpenAI dialect. */
export async function handleChatCompletions(
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  deps: ChatHandlerDeps,
): Promise<void> {
  const startedAtMs = Date.now();
  const config = deps.config();
  const body = await readJsonBody(request, config.server.max_body_bytes);
  const { requestedModel, request: chat } = parseOpenAiChat(body);
  const route = resolveRoute(config, requestedModel);
  const deadlineAtMs = deadlineFromHeaders(request.headers, route.policy.timeouts.total_ms, startedAtMs);

  const caller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) caller.abort();
  });

  let outcome: ChatOutcome;
  try {
    outcome = await runChat({ request: chat, route, callerSignal: caller.signal, requestStartedAtMs: startedAtMs, deadlineAtMs }, deps.engine);
  } catch (error) {
    if (!(error instanceof AllAttemptsFailedError)) throw error;
    if (caller.signal.aborted) return;
    const final = finalError(error.attempts);
    sendJson(
      response,
      final.status,
      {
        error: {
          message: final.message,
          type: final.type,
          param: null,
          code: final.code,
          request_id: requestId,
          attempts: error.attempts.map(describeAttempt),
        },
      },
      retryHeaders(final.retryAfterMs),
    );
    return;
  }

  const headers = servedHeaders(outcome.served, outcome.attempts.length);
  if (outcome.type === 'result') {
    sendJson(response, 200, renderOpenAiChat(outcome.result, `chatcmpl-${requestId}`), headers);
    return;
  }
  const writer = new OpenAiStreamWriter({ fallbackId: `chatcmpl-${requestId}`, model: outcome.served.routedModel, includeUsage: chat.includeUsage });
  await writeSse(response, headers, outcome.events, writer);
}

function servedHeaders(served: ResolvedTarget, attempts: number): Record<string, string> {
  return {
    'x-switchyard-served-by': `${served.connectionName}/${served.routedModel}`,
    'x-switchyard-attempts': String(attempts),
  };
}

function describeAttempt(attempt: AttemptRecord): Record<string, unknown> {
  return {
    n: attempt.n,
    target: `${attempt.connection}/${attempt.model}`,
    kind: attempt.kind,
    status: attempt.httpStatus ?? null,
    latency_ms: attempt.latencyMs,
    ...(attempt.message === undefined ? {} : { message: attempt.message }),
  };
}
