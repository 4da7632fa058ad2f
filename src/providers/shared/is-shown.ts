import type { ChatMessage } from '../spec.js';

/**
 * Whether the model reads this message. Only a caller's system entry among the turns can be
 * hidden (cleared at a later user message, or with no text); providers other than Anthropic,
 * which gets every entry back as sent, leave such entries out.
 */
export function isShown(message: ChatMessage): boolean {
  return message.role !== 'system' || message.conversationEntry?.shown !== false;
}
