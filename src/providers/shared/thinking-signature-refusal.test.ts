import { describe, expect, it } from 'vitest';
import { parseAnthropicError } from '../anthropic/parse-error.js';
import { parseBedrockError } from '../bedrock/parse-error.js';
import { refusesThinkingSignature } from './thinking-signature-refusal.js';

const anthropicBody = (message: string) => JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message }, request_id: 'req_011CUdL49e3Fu9bCKbWF6cXD' });

describe('refusesThinkingSignature', () => {
  it("reads Anthropic's refusal of a thinking block's signature and of a redacted block's data", () => {
    expect(refusesThinkingSignature(parseAnthropicError(400, {}, anthropicBody('messages.1.content.0: Invalid `signature` in `thinking` block'), 0))).toBe(true);
    expect(refusesThinkingSignature(parseAnthropicError(400, {}, anthropicBody('messages.23.content.2: Invalid `data` in `redacted_thinking` block'), 0))).toBe(true);
  });

  it("reads Bedrock's ValidationException with the same words", () => {
    const failure = parseBedrockError(400, { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' }, JSON.stringify({ message: 'messages.1.content.0: Invalid `signature` in `thinking` block' }), 0);
    expect(failure.kind).toBe('invalid_request');
    expect(refusesThinkingSignature(failure)).toBe(true);
  });

  it('leaves other invalid requests, and the same words under another kind, alone', () => {
    expect(refusesThinkingSignature(parseAnthropicError(400, {}, anthropicBody('messages.3.content.8: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified.'), 0))).toBe(false);
    expect(refusesThinkingSignature(parseAnthropicError(400, {}, anthropicBody('max_tokens: Field required'), 0))).toBe(false);
    expect(refusesThinkingSignature({ kind: 'server_error', message: 'Invalid `signature` in `thinking` block' })).toBe(false);
  });
});
