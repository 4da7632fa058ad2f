import { ANTHROPIC_MESSAGES } from './anthropic-messages/anthropic-messages.js';
import type { CallerDialect } from './caller-dialect.js';
import { OPENAI_CHAT } from './openai-chat/openai-chat.js';
import { OPENAI_RESPONSES } from './openai-responses/openai-responses.js';

/**
 * The dialect a request to `path` is answered in, even before (or without) its handler: its
 * request-id headers and the shape of an error body. Everything outside the Anthropic and
 * Responses paths answers as Chat Completions does.
 */
export function dialectOfPath(path: string): CallerDialect {
  if (path.startsWith('/v1/messages')) return ANTHROPIC_MESSAGES;
  if (path.startsWith('/v1/responses')) return OPENAI_RESPONSES;
  return OPENAI_CHAT;
}
