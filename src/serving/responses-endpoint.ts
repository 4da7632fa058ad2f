import type { Logger } from 'pino';
import { DAY_MS, responseScopeOf, type StoredResponses } from '../conversations/stored-responses.js';
import type { ParsedChat } from '../dialects/caller-dialect.js';
import { expandConversation, inputItemsOf, previousResponseIdOf, previousResponseNotFound } from '../dialects/openai-responses/expand-conversation.js';
import { OPENAI_RESPONSES } from '../dialects/openai-responses/openai-responses.js';
import type { ChatAnswer } from '../engine/chat-operation.js';
import { chatEndpoint } from './chat-endpoint.js';
import type { Endpoint } from './endpoint.js';

/** A Responses body, parsed, with what storing its answer needs. */
export interface ParsedResponses extends ParsedChat {
  /** The whole conversation's input items (after expansion), and whether the caller let it be stored. */
  conversation: { input: readonly unknown[]; store: boolean };
}

export interface ResponsesEndpointDeps {
  stored: StoredResponses;
  /** `responses.retention_days` in force: an older stored response is as gone as a pruned one. */
  retentionDays(): number;
  logger: Logger;
}

/**
 * `POST /v1/responses`: the Responses caller dialect on the chat pipeline, with conversation
 * state. A `previous_response_id` is expanded into the whole conversation before parsing (so
 * before the attempt loop: any target of the route can serve the next turn), and every answer
 * is stored, unless the caller said `store: false`, before its last byte leaves.
 */
export function responsesEndpoint(deps: ResponsesEndpointDeps): Endpoint<ParsedResponses, ChatAnswer> {
  const chat = chatEndpoint(OPENAI_RESPONSES);
  return {
    ...chat,
    async prepareBody(body, principal) {
      const id = previousResponseIdOf(body);
      if (id === undefined) return body;
      const previous = await deps.stored.find(id, responseScopeOf(principal), Date.now() - deps.retentionDays() * DAY_MS);
      if (!previous) throw previousResponseNotFound(id);
      const output = Array.isArray(previous.response.output) ? previous.response.output : [];
      return expandConversation(body as Record<string, unknown>, { input: previous.input, output, provider: previous.provider });
    },
    parse(body, headers, text) {
      const parsed = chat.parse(body, headers, text);
      const fields = body as Record<string, unknown>;
      return { ...parsed, conversation: { input: inputItemsOf(fields.input) ?? [], store: fields.store !== false } };
    },
    async keepAnswer(answer, { parsed, served, principal }) {
      if (!parsed.conversation.store) return;
      try {
        await deps.stored.save({
          id: String(answer.id),
          keyId: responseScopeOf(principal).keyId,
          createdMs: Date.now(),
          model: String(answer.model),
          provider: served.connection.provider,
          connection: served.connectionName,
          input: parsed.conversation.input,
          response: answer,
        });
      } catch (error) {
        // The answer still goes out, saying it was not stored: a next turn naming it would not find it.
        answer.store = false;
        deps.logger.warn({ err: error, responseId: answer.id }, 'storing a response failed; it is answered unstored');
      }
    },
  };
}
