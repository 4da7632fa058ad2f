import type { IncomingMessage, ServerResponse } from 'node:http';
import { admitRequest, settleAdmission, type AdmissionDeps, type AdmissionHandle } from '../admission/admit-request.js';
import { estimateEmbeddingsTokens } from '../admission/token-estimator.js';
import { embeddingsOperation } from '../engine/embeddings-operation.js';
import { runRoute, type EngineDeps } from '../engine/run-route.js';
import { knownSecrets } from '../config/known-secrets.js';
import { AllAttemptsFailedError } from '../errors/all-attempts-failed-error.js';
import { parseOpenAiEmbeddings } from '../dialects/openai-embeddings/parse-openai-embeddings.js';
import { renderOpenAiEmbeddings } from '../dialects/openai-embeddings/render-openai-embeddings.js';
import { secretRedactor } from '../records/redact-secrets.js';
import type { RecordDraft } from '../records/record-draft.js';
import { callerCancellation } from './caller-cancellation.js';
import { failureBody } from './failure-body.js';
import { OPENAI_CHAT } from '../dialects/openai-chat/openai-chat.js';
import { openGate, type GateDeps } from './open-gate.js';
import { retryHeaders, sendJson, servedHeaders } from './send.js';

export interface EmbeddingsHandlerDeps extends AdmissionDeps, GateDeps {
  engine: EngineDeps;
}

/**
 * `POST /v1/embeddings`: the same gate, attempt loop, health state, records and ledger as chat
 * (README.md, HTTP API); targets whose provider has no embeddings are passed over. Nothing is generated, so
 * the budget reserves input tokens only.
 */
export async function handleEmbeddings(
  request: IncomingMessage,
  response: ServerResponse,
  trace: RecordDraft,
  deps: EmbeddingsHandlerDeps,
): Promise<void> {
  trace.operation = 'embeddings';
  const { config, principal, parsed, route, deadlineAtMs } = await openGate(request, trace, deps, parseOpenAiEmbeddings);
  const embeddings = parsed.request;
  const caller = callerCancellation(response);
  let admission: AdmissionHandle = {};
  try {
    admission = await admitRequest(principal, { inputTokens: () => estimateEmbeddingsTokens(embeddings), maxOutputTokens: 0 }, route, { config, nowMs: trace.startedAtMs }, deps);
    const outcome = await runRoute(
      { route, caller, requestStartedAtMs: trace.startedAtMs, deadlineAtMs, waited: trace.waited },
      embeddingsOperation(embeddings),
      deps.engine,
    );
    trace.attempts = outcome.attempts;
    trace.served = outcome.served;
    trace.firstTokenAtMs = Date.now();
    const body = renderOpenAiEmbeddings(outcome.answer, { model: outcome.served.routedModel, encodingFormat: embeddings.encodingFormat });
    sendJson(response, 200, body, servedHeaders(outcome.served, outcome.attempts.length, secretRedactor(knownSecrets(deps.config()))));
  } catch (error) {
    if (!(error instanceof AllAttemptsFailedError)) throw error;
    trace.attempts = error.attempts;
    if (caller.aborted) {
      trace.fail('cancelled', 499, 'cancelled');
      return;
    }
    const { final, body } = failureBody(error, trace, deps.config(), OPENAI_CHAT);
    trace.fail('failed', final.status, final.code, final.message);
    sendJson(response, final.status, body, retryHeaders(final.retryAfterMs));
  } finally {
    settleAdmission(admission, trace.attempts, { config: deps.config(), route: trace.route }, deps);
  }
}
