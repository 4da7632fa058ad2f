/**
 * Signed thinking in each Claude wire format, for an answer that starts with it
 * (./thinking-signatures.ts). Anthropic streams a thinking block as `thinking_delta`s and then a
 * `signature_delta`; Bedrock's Converse calls it `reasoningContent`, streamed as text and then signature.
 */
import type { MockThinking } from './thinking-signatures.js';

export function anthropicThinkingBlock(thinking: MockThinking): object {
  return { type: 'thinking', thinking: thinking.text, signature: thinking.signature };
}

/** The thinking block of an Anthropic stream, at index 0, as `[event type, data]` pairs. */
export function anthropicThinkingEvents(thinking: MockThinking): [string, object][] {
  return [
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: thinking.text } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: thinking.signature } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ];
}

export function bedrockReasoningBlock(thinking: MockThinking): object {
  return { reasoningContent: { reasoningText: { text: thinking.text, signature: thinking.signature } } };
}

/** The reasoning block of a ConverseStream, at index 0, as `[event type, payload]` pairs. */
export function bedrockReasoningEvents(thinking: MockThinking): [string, object][] {
  return [
    ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: thinking.text } } }],
    ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: thinking.signature } } }],
    ['contentBlockStop', { contentBlockIndex: 0 }],
  ];
}
