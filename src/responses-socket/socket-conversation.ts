import { expandConversation, inputItemsOf, previousResponseIdOf, type PreviousTurn } from '../dialects/openai-responses/expand-conversation.js';
import { responseIdOf } from '../dialects/openai-responses/response-object.js';
import { warmUpEvents } from '../dialects/openai-responses/warm-up-response.js';
import type { ChatAnswer } from '../engine/chat-operation.js';
import type { Endpoint } from '../serving/endpoint.js';
import type { ParsedResponses } from '../serving/responses-endpoint.js';

/**
 * One WebSocket's conversation: the socket keeps its latest answered turn in memory, so a next
 * turn naming it continues even when the caller said `store: false` (as agents do: Codex sends
 * every turn unstored). Any other `previous_response_id` is looked up in the gateway's stored
 * responses, as over HTTP. A turn that fails leaves the latest as it was.
 */
export class SocketConversation {
  /** The Responses endpoint as this socket serves it. No `Idempotency-Key` applies: a socket's headers are its handshake's. */
  readonly endpoint: Endpoint<ParsedResponses, ChatAnswer>;
  #latest: (PreviousTurn & { id: string }) | undefined;

  constructor(endpoint: Endpoint<ParsedResponses, ChatAnswer>) {
    const { idempotencyScope: _perRequest, ...rest } = endpoint;
    this.endpoint = {
      ...rest,
      prepareBody: async (body, principal) => {
        const id = previousResponseIdOf(body);
        const latest = this.#latest;
        if (id !== undefined && id === latest?.id) return expandConversation(body as Record<string, unknown>, latest);
        return endpoint.prepareBody ? endpoint.prepareBody(body, principal) : body;
      },
      keepAnswer: async (answer, context) => {
        await endpoint.keepAnswer?.(answer, context);
        const output = Array.isArray(answer.output) ? (answer.output as unknown[]) : [];
        this.#latest = { id: String(answer.id), input: context.parsed.conversation.input, output, provider: context.served.connection.provider };
      },
    };
  }

  /**
   * `generate: false`: the client prepares the socket. Nothing is generated and no provider is
   * called; the input becomes the latest turn (with no output), and the answer's events are returned.
   */
  warmUp(create: Record<string, unknown>, requestId: string): Record<string, unknown>[] {
    const id = responseIdOf(requestId);
    this.#latest = { id, input: inputItemsOf(create.input) ?? [], output: [], provider: '' };
    return warmUpEvents(create, id);
  }
}
