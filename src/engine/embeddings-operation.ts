import type { EmbeddingsRequest, EmbeddingsResult } from '../providers/spec.js';
import { UpstreamFailureError } from '../providers/spec.js';
import { estimateTokens } from '../metering/estimate-tokens.js';
import { trustedUsage } from '../metering/trusted-usage.js';
import type { Operation } from './run-attempt.js';

/** An embeddings attempt: read whole, like a non-streamed chat. Targets without embeddings are skipped. */
export function embeddingsOperation(request: EmbeddingsRequest): Operation<EmbeddingsResult> {
  return {
    name: 'embeddings',
    accepts: (adapter) => adapter.embeddings !== undefined,
    estimateInputTokens: () => estimateTokens(inputCharacters(request)),
    build(adapter, target) {
      if (!adapter.embeddings) throw new UpstreamFailureError({ kind: 'invalid_request', message: 'this target does not serve embeddings' });
      return adapter.embeddings.buildRequest(request, target);
    },
    async read(response, context, input) {
      context.timer.arm('idle', input.timeouts.idle_ms);
      const result = input.adapter.embeddings!.parseResponse(await response.body.json());
      if (result.vectors.length !== request.input.length) {
        return context.fail({ kind: 'server_error', message: `the provider returned ${result.vectors.length} embeddings for ${request.input.length} inputs` });
      }
      // A provider that reports no usage (Gemini) still bills: the input is counted here, marked estimated.
      const estimate = () => ({ inputTokens: estimateTokens(inputCharacters(request)), outputTokens: 0 });
      const usage = result.usage ? trustedUsage(result.usage, estimate) : { ...estimate(), estimated: true };
      return context.answeredWhole({ ...result, usage }, usage);
    },
  };
}

function inputCharacters(request: EmbeddingsRequest): number {
  let characters = 0;
  // A token array is already a count; four characters a token keeps the two on one scale.
  for (const input of request.input) characters += typeof input === 'string' ? input.length : input.length * 4;
  return characters;
}
