import { createHash } from 'node:crypto';
import type { ChatMessage } from '../spec.js';

/** What a provider accepts as a tool-call id, and how a stand-in for one it would refuse is made. */
export interface ToolCallIdRule {
  /** The whole id, length included. */
  pattern: RegExp;
  prefix: string;
  /** Length of a stand-in: the prefix and as much of a hex digest as fits. */
  length: number;
}

/**
 * An id the provider accepts for `id`: the id itself when it fits, else a stand-in derived from
 * it. The same id always gives the same stand-in, so a call and its result still match, in this
 * request and in the next. This matters when a conversation moves between providers: Gemini's
 * signed ids run to hundreds of characters, OpenAI refuses more than 40 (400
 * `string_above_max_length`), Bedrock more than 64, Mistral anything but 9 letters and digits.
 */
export function fitToolCallId(id: string, rule: ToolCallIdRule): string {
  if (rule.pattern.test(id)) return id;
  return (rule.prefix + createHash('sha256').update(id).digest('hex')).slice(0, rule.length);
}

/** Whether every tool-call id of the conversation fits `rule` as it is: a body that can be relayed without rewriting one. */
export function toolCallIdsFit(messages: readonly ChatMessage[], rule: ToolCallIdRule): boolean {
  return messages.every((message) => {
    if (message.role === 'tool') return rule.pattern.test(message.toolCallId);
    return message.role !== 'assistant' || (message.toolCalls ?? []).every((call) => rule.pattern.test(call.id));
  });
}

export const OPENAI_TOOL_CALL_IDS: ToolCallIdRule = { pattern: /^[^]{1,40}$/, prefix: 'call_', length: 40 };
/** Anthropic documents the characters (`^[a-zA-Z0-9_-]+$`), not a length. */
export const ANTHROPIC_TOOL_CALL_IDS: ToolCallIdRule = { pattern: /^[a-zA-Z0-9_-]+$/, prefix: 'toolu_', length: 64 };
export const BEDROCK_TOOL_CALL_IDS: ToolCallIdRule = { pattern: /^[a-zA-Z0-9_-]{1,64}$/, prefix: 'tooluse_', length: 64 };
export const MISTRAL_TOOL_CALL_IDS: ToolCallIdRule = { pattern: /^[a-zA-Z0-9]{9}$/, prefix: '', length: 9 };
