import { Cancellation } from '../core/cancellation.js';
import { chatOperation } from '../engine/chat-operation.js';
import { embeddingsOperation } from '../engine/embeddings-operation.js';
import { runAttempt } from '../engine/run-attempt.js';
import type { EngineDeps } from '../engine/route-call.js';
import { PROBE_EMBEDDINGS_REQUEST, PROBE_REQUEST } from '../health/probe-request.js';
import { PROBE_TIMEOUTS, type ProbeDeps } from '../health/run-probe.js';
import { isEmbeddingModel } from '../metering/embedding-models.js';
import { keepRecord } from './keep-record.js';
import type { GatewayRequestDeps } from './run-gateway-request.js';

/**
 * The health monitor's probe as a gateway-made request: one attempt through the engine (no
 * retries, no failover: it asks about one deployment), its record kept, and billed, as the
 * gateway's other requests are.
 */
export function gatewayProbe(deps: GatewayRequestDeps): ProbeDeps {
  return {
    config: deps.config,
    newRequestId: deps.newRequestId,
    attempt: probeAttempt(deps.engine),
    keep: (draft) => keepRecord(draft, deps.config(), deps),
  };
}

/** The engine's single attempt, as the probe sends it. */
function probeAttempt(engine: Pick<EngineDeps, 'transport' | 'accessTokens' | 'adapterFor' | 'baseUrlFor'>): ProbeDeps['attempt'] {
  return ({ target, requestStartedAtMs, deadlineAtMs }) => {
    const input = {
      n: 1,
      target,
      adapter: engine.adapterFor(target),
      baseUrl: engine.baseUrlFor(target),
      timeouts: PROBE_TIMEOUTS,
      caller: new Cancellation(),
      deadlineAtMs,
      requestStartedAtMs,
      transport: engine.transport,
      accessTokens: engine.accessTokens,
    };
    // An embedding model refuses a chat, which would keep it faulted for good.
    return isEmbeddingModel(target.routedModel)
      ? runAttempt(input, embeddingsOperation(PROBE_EMBEDDINGS_REQUEST))
      : runAttempt(input, chatOperation(PROBE_REQUEST, 'first_token'));
  };
}
