import { estimateInputTokens } from '../admission/token-estimator.js';
import { chatOperation, type ChatAnswer } from '../engine/chat-operation.js';
import type { CallerDialect } from '../dialects/caller-dialect.js';
import type { ParsedChat } from '../dialects/caller-dialect.js';
import type { Endpoint } from './endpoint.js';

/** `POST /v1/chat/completions` and `POST /v1/messages`: the dialect decides parsing and rendering only. */
export function chatEndpoint(dialect: CallerDialect): Endpoint<ParsedChat, ChatAnswer> {
  return {
    idempotencyScope: dialect.endpoint,
    parse: dialect.parse,
    demand: ({ request }) => ({ inputTokens: () => estimateInputTokens(request), maxOutputTokens: request.maxOutputTokens }),
    operationOf: ({ request }, route) => chatOperation(request, route.policy.commit),
    errorBody: dialect.errorBody,
    streamRenderer: ({ request, requestedModel }, draft) =>
      request.stream
        ? dialect.streamRenderer({
            fallbackId: draft.id,
            model: requestedModel,
            includeUsage: request.includeUsage,
            estimateInputTokens: () => estimateInputTokens(request),
          })
        : undefined,
    render: (answer, { draft }) => ('result' in answer ? { json: dialect.renderResult(answer.result, draft.id) } : { events: answer.events }),
  };
}
