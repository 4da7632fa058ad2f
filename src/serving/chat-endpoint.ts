import { estimateInputTokens } from '../admission/token-estimator.js';
import { chatOperation, type ChatAnswer } from '../engine/chat-operation.js';
import type { CallerDialect } from '../dialects/caller-dialect.js';
import type { ParsedChat } from '../dialects/caller-dialect.js';
import { lowerOutputCap } from '../dialects/shared/lower-output-cap.js';
import { headerSafe, JsonText } from '../http/send.js';
import type { Endpoint } from './endpoint.js';
import { withSessionCacheKey } from './session-cache-key.js';

const DROPPED_TOOLS_HEADER = 'x-switchyard-dropped-tools';

/** `POST /v1/chat/completions`, `/v1/messages` and `/v1/responses`: the dialect decides parsing and rendering only. */
export function chatEndpoint(dialect: CallerDialect): Endpoint<ParsedChat, ChatAnswer> {
  return {
    ...(dialect.operation ? { operation: dialect.operation } : {}),
    idempotencyScope: dialect.endpoint,
    parse: (body, headers, text) => {
      const parsed = dialect.parse(body, headers);
      if (dialect.relaysTo !== undefined && text !== undefined) parsed.request.callerBody = { dialect: dialect.relaysTo, text };
      return parsed;
    },
    demand: ({ request }) => ({
      inputTokens: () => estimateInputTokens(request),
      maxOutputTokens: request.maxOutputTokens,
      lowerOutputCap: (tokens) => lowerOutputCap(request, tokens),
    }),
    operationOf: ({ request, droppedTools }, route, sessionId) =>
      chatOperation(withSessionCacheKey(request, sessionId), route.policy.commit, {
        responsesTargetsOnly: route.policy.hosted_tools === 'skip_target' && droppedTools !== undefined,
      }),
    errorBody: dialect.errorBody,
    responseHeaders: ({ droppedTools }): Record<string, string> =>
      droppedTools ? { [DROPPED_TOOLS_HEADER]: headerSafe(droppedTools.join(', ')) } : {},
    streamRenderer: ({ request, requestedModel, echo }, draft) =>
      request.stream
        ? dialect.streamRenderer({
            fallbackId: draft.id,
            model: requestedModel,
            includeUsage: request.includeUsage,
            estimateInputTokens: () => estimateInputTokens(request),
            echo,
          })
        : undefined,
    render: (answer, { parsed, draft }) => {
      // A target on its own Responses API took the hosted tools: none were dropped.
      const tookEveryTool = answer.upstream === 'openai-responses';
      if (parsed.droppedTools && !tookEveryTool) draft.droppedTools = parsed.droppedTools;
      const withdrawnHeaders = parsed.droppedTools && tookEveryTool ? [DROPPED_TOOLS_HEADER] : [];
      if ('events' in answer) return { events: answer.events, withdrawnHeaders, ...(answer.relayed ? { relayed: answer.relayed } : {}) };
      const json = answer.relayedBody === undefined ? dialect.renderResult(answer.result, draft.id, parsed.echo) : new JsonText(dialect.relayedResult?.(answer.relayedBody, draft.id) ?? answer.relayedBody);
      return { json, withdrawnHeaders };
    },
  };
}
