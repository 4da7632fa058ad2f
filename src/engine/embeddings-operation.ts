import type { EmbeddingsRequest, EmbeddingsResult } from '../providers/spec.js';
import { ProviderFailure } from '../providers/spec.js';
import type { Operation } from './run-attempt.js';

/** An embeddings attempt: read whole, like a non-streamed chat. Targets without embeddings are skipped. */
export function embeddingsOperation(request: EmbeddingsRequest): Operation<EmbeddingsResult> {
  return {
    name: 'embeddings',
    accepts: (adapter) => adapter.embeddings !== undefined,
    build(adapter, target) {
      if (!adapter.embeddings) throw new ProviderFailure({ kind: 'invalid_request', message: 'this target does not serve embeddings' });
      return adapter.embeddings.buildRequest(request, target);
    },
    async read(response, context, input) {
      context.timer.arm('idle', input.timeouts.idle_ms);
      const result = input.adapter.embeddings!.parseResponse(await response.body.json());
      if (result.vectors.length !== request.input.length) {
        return context.fail({ kind: 'server_error', message: `the provider returned ${result.vectors.length} embeddings for ${request.input.length} inputs` });
      }
      Object.assign(context.record, { latencyMs: Date.now() - context.startedAtMs, usage: result.usage, committed: true });
      context.release(true);
      return { ok: true, record: context.record, answer: result };
    },
  };
}
