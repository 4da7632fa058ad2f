import type { Config } from '../config/schema.js';
import { Cancellation } from '../core/cancellation.js';
import type { RequestOrigin } from '../core/request-origin.js';
import type { RequestRecord } from '../core/request-record.js';
import { chatOperation, type ChatAnswer } from '../engine/chat-operation.js';
import { embeddingsOperation } from '../engine/embeddings-operation.js';
import type { EngineDeps, Served } from '../engine/route-call.js';
import { runRoute } from '../engine/run-route.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import type { HealthDoor } from '../health/health-door.js';
import type { ChatRequest, EmbeddingsRequest } from '../providers/spec.js';
import { RecordDraft } from '../records/record-draft.js';
import type { ResolvedRoute, ResolvedTarget } from '../routing/resolve-route.js';
import { keepRecord, type KeepRecordDeps } from './keep-record.js';
import { recordFailure } from './record-failure.js';

export interface GatewayRequestDeps extends KeepRecordDeps {
  config(): Config;
  engine: EngineDeps;
  newRequestId(): string;
}

/** A request the gateway sends through one of its own routes (a drill step, a canary prompt). */
export interface GatewayRequest {
  origin: Exclude<RequestOrigin, 'caller'>;
  /** The route as resolved from the config in force; the drill narrows its targets. */
  route: ResolvedRoute;
  /** A chat is always answered whole (`stream: false`); an embeddings request answers no text. */
  request: ChatRequest | EmbeddingsRequest;
  /** The door to health for this request; the engine's own when absent. */
  health?: HealthDoor;
  forcedFailures?: ReadonlySet<ResolvedTarget>;
  /** Aborts the request (the gateway is shutting down). */
  cancellation?: Cancellation;
}

/** How a gateway-made request ended, with the record it was kept as. */
export type GatewayRequestOutcome =
  | { ok: true; record: RequestRecord; text: string; served: ResolvedTarget }
  | { ok: false; record: RequestRecord; kind: string; message: string };

/**
 * Runs a gateway-made request through the attempt loop like a caller's — same policy, same
 * health (unless a door of its own is given), same ledger and records — and keeps it with its
 * origin. It has no key and passes no admission gate; it stays out of the fallback share, whose
 * figures are the callers'.
 */
export async function runGatewayRequest(input: GatewayRequest, deps: GatewayRequestDeps): Promise<GatewayRequestOutcome> {
  const config = deps.config();
  const draft = new RecordDraft(deps.newRequestId(), Date.now());
  draft.origin = input.origin;
  draft.modelRequested = input.route.name;
  draft.route = input.route.name;
  draft.routeLabel = input.route.name;
  draft.deadlineAtMs = draft.startedAtMs + input.route.policy.timeouts.total_ms;
  let outcome: { ok: true; text: string; served: ResolvedTarget } | { ok: false; kind: string; message: string };
  try {
    const call = {
      route: input.route,
      caller: input.cancellation ?? new Cancellation(),
      requestStartedAtMs: draft.startedAtMs,
      deadlineAtMs: draft.deadlineAtMs,
      waited: draft.waited,
      ...(input.forcedFailures ? { forcedFailures: input.forcedFailures } : {}),
    };
    const engine = input.health ? { ...deps.engine, health: input.health } : deps.engine;
    const { request } = input;
    let served: Served<unknown>;
    let text = '';
    if ('input' in request) {
      draft.operation = 'embeddings';
      served = await runRoute(call, embeddingsOperation(request), engine);
    } else {
      const chat = await runRoute(call, chatOperation({ ...request, stream: false }, 'first_token'), engine);
      text = textOf(chat.answer);
      served = chat;
    }
    draft.attempts = served.attempts;
    draft.skipped = served.skipped;
    draft.served = served.served;
    draft.firstTokenAtMs = Date.now();
    outcome = { ok: true, text, served: served.served };
  } catch (error) {
    outcome = failureOf(error, draft);
  }
  const record = keepRecord(draft, config, deps);
  return { ...outcome, record };
}

function textOf(answer: ChatAnswer): string {
  // Asked for whole, so answered whole.
  return 'result' in answer ? answer.result.text : '';
}

/** The last attempt's kind and message say what went wrong; the record's error says it when there was none. */
function failureOf(error: unknown, draft: RecordDraft): { ok: false; kind: string; message: string } {
  recordFailure(draft, error);
  const last = error instanceof AllAttemptsFailedError ? error.attempts.at(-1) : undefined;
  return { ok: false, kind: last?.kind ?? draft.errorCode!, message: last?.message ?? draft.errorMessage! };
}
