import { expandConversation, previousResponseIdOf, type PreviousTurn } from '../dialects/openai-responses/expand-conversation.js';
import type { ChatAnswer } from '../engine/chat-operation.js';
import type { Endpoint } from '../serving/endpoint.js';
import type { ParsedResponses } from '../serving/responses-endpoint.js';

/**
 * The Responses endpoint as one WebSocket serves it: the socket keeps its latest answered turn in
 * memory, so a next turn naming it continues even when the caller said `store: false` (as agents
 * do: Codex sends every turn unstored). Any other `previous_response_id` is looked up in the
 * gateway's stored responses, as over HTTP. A turn that fails leaves the latest as it was. No
 * `Idempotency-Key` applies: it is a header, and a socket's headers are its handshake's.
 */
export function socketConversation(endpoint: Endpoint<ParsedResponses, ChatAnswer>): Endpoint<ParsedResponses, ChatAnswer> {
  let latest: (PreviousTurn & { id: string }) | undefined;
  const { idempotencyScope: _none, ...rest } = endpoint;
  return {
    ...rest,
    async prepareBody(body, principal) {
      const id = previousResponseIdOf(body);
      if (id !== undefined && id === latest?.id) return expandConversation(body as Record<string, unknown>, latest);
      return endpoint.prepareBody ? endpoint.prepareBody(body, principal) : body;
    },
    async keepAnswer(answer, context) {
      await endpoint.keepAnswer?.(answer, context);
      const output = Array.isArray(answer.output) ? (answer.output as unknown[]) : [];
      latest = { id: String(answer.id), input: context.parsed.conversation.input, output, provider: context.served.connection.provider };
    },
  };
}
