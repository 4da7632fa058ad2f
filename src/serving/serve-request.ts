import type { Config } from '../config/schema.js';
import { knownSecrets } from '../config/known-secrets.js';
import type { EngineDeps, Served } from '../engine/route-call.js';
import { runRoute } from '../engine/run-route.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { JsonText, servedHeaders } from '../http/send.js';
import { changedAtTopLevel, topLevelCopy } from '../dialects/shared/kept-answer.js';
import { secretRedactor } from '../records/redact-secrets.js';
import { RecordDraft } from '../records/record-draft.js';
import type { CallerReply, StreamOptions } from './caller-reply.js';
import type { Endpoint } from './endpoint.js';
import { finishRequest, type FinishDeps } from './finish-request.js';
import type { Inbound } from './inbound.js';
import { openRequest, type OpenDeps, type OpenedRequest } from './open-request.js';
import { recordFailure } from './record-failure.js';
import type { RequestContext } from './request-context.js';

export interface ServingDeps extends OpenDeps, FinishDeps {
  config(): Config;
  engine: EngineDeps;
}

/**
 * One inference request, top to bottom, whatever carried it (an HTTP request, or a
 * `response.create` on a WebSocket): the config snapshot and the record draft are made once on
 * arrival, beside the caller's reply its transport made; `openRequest` gates it; the engine runs
 * the endpoint's operation; the reply sends the answer, or says what stopped it (a refusal is
 * answered before its record is kept); and `finishRequest` is its one end, whatever happened.
 */
export async function serveRequest<Parsed extends { requestedModel: string }, Answer>(
  request: Inbound,
  reply: CallerReply,
  requestId: string,
  endpoint: Endpoint<Parsed, Answer>,
  deps: ServingDeps,
): Promise<void> {
  const draft = new RecordDraft(requestId, Date.now());
  if (endpoint.operation) draft.operation = endpoint.operation;
  if (request.transport === 'websocket') draft.transport = 'websocket';
  const start = { config: deps.config(), draft, caller: reply.caller };
  let context: RequestContext | undefined;
  let thrown: { error: unknown } | undefined;
  try {
    const opened = await openRequest(request, reply, start, endpoint, deps);
    if (opened === 'replayed') return;
    context = opened.context;
    await answer(reply, opened, endpoint, deps);
  } catch (error) {
    thrown = { error };
    reply.refuse(error);
  } finally {
    finishRequest({ start, context, thrown, request, reply }, deps);
  }
}

async function answer<Parsed extends { requestedModel: string }, Answer>(
  reply: CallerReply,
  opened: OpenedRequest<Parsed>,
  endpoint: Endpoint<Parsed, Answer>,
  deps: ServingDeps,
): Promise<void> {
  const { context, parsed } = opened;
  const { draft, route, idempotency } = context;
  if (endpoint.responseHeaders) for (const [name, value] of Object.entries(endpoint.responseHeaders(parsed))) reply.setHeader(name, value);
  const streamRenderer = endpoint.streamRenderer(parsed, draft);
  reply.begin({ renderer: streamRenderer, heartbeatMs: route.policy.timeouts.heartbeat_ms, idempotency });
  let outcome: Served<Answer>;
  try {
    outcome = await runRoute(
      {
        route,
        caller: context.caller,
        requestStartedAtMs: draft.startedAtMs,
        deadlineAtMs: context.deadlineAtMs,
        waited: draft.waited,
        upstreamIdempotencyKey: idempotency?.upstreamKey,
        boundTarget: context.sessionBinding?.bound,
      },
      endpoint.operationOf(parsed, route, context.sessionId),
      deps.engine,
    );
  } catch (error) {
    if (!(error instanceof AllAttemptsFailedError)) throw error;
    answerFailure(reply, error, context);
    return;
  }

  draft.attempts = outcome.attempts;
  draft.skipped = outcome.skipped;
  draft.served = outcome.served;
  // Bound before the answer goes out, so the session's next turn finds it on any replica.
  if (context.sessionBinding) draft.affinity = deps.affinity.served(context.sessionBinding, outcome.served);
  const redact = secretRedactor(knownSecrets(context.config));
  const headers = servedHeaders(outcome.served, outcome.attempts.length, redact);
  const rendered = endpoint.render(outcome.answer, { parsed, served: outcome.served, draft });
  if (rendered.withdrawnHeaders) reply.withdrawHeaders(rendered.withdrawnHeaders);
  // Most endpoints keep no answer: nothing is made for keeping one unless this one does.
  const keep = endpoint.keepAnswer ? (answer: Record<string, unknown>) => endpoint.keepAnswer!(answer, { parsed, served: outcome.served, principal: context.principal }) : undefined;
  if ('json' in rendered) {
    draft.firstTokenAtMs = Date.now();
    reply.sendJson(200, keep ? await keptBeforeSent(rendered.json, keep) : rendered.json, headers);
    return;
  }
  const options: StreamOptions = {
    onFirstWrite: () => {
      draft.firstTokenAtMs ??= Date.now();
    },
    redact,
  };
  if (keep) options.keepAnswer = keep;
  if (rendered.relayed) options.relayed = rendered.relayed;
  const ended = await reply.stream(headers, rendered.events, options);
  if (ended === 'interrupted') draft.fail('interrupted', 200, { code: 'stream_interrupted', message: draft.attempts.at(-1)?.message ?? null });
  else if (ended === 'cancelled') draft.fail('cancelled', 499, { code: 'cancelled' });
}

/** Keeps an answer before it is sent; a relayed body goes as the provider's text unless keeping it changed it. */
async function keptBeforeSent(json: unknown, keep: (answer: Record<string, unknown>) => Promise<void>): Promise<unknown> {
  if (!(json instanceof JsonText)) {
    await keep(json as Record<string, unknown>);
    return json;
  }
  const answer = JSON.parse(json.text) as Record<string, unknown>;
  const before = topLevelCopy(answer);
  await keep(answer);
  return changedAtTopLevel(before, answer) ? answer : json;
}

/** Every attempt failed: the record says so, and the reply tells the caller (unless it has gone). */
function answerFailure(reply: CallerReply, error: AllAttemptsFailedError, context: RequestContext): void {
  const final = recordFailure(context.draft, error);
  if (context.caller.aborted) context.draft.fail('cancelled', 499, { code: 'cancelled' });
  reply.fail(final, error.attempts, context.config);
}
