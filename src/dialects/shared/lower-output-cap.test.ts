import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../providers/spec.js';
import { lowerOutputCap } from './lower-output-cap.js';

const withThinking = (thinking: unknown): ChatRequest => ({
  messages: [],
  maxOutputTokens: 64_000,
  stream: false,
  includeUsage: false,
  passthrough: { dialect: 'anthropic', fields: { thinking, top_k: 5 } },
});

describe('lowerOutputCap', () => {
  it('sets the output cap', () => {
    const request: ChatRequest = { messages: [], maxOutputTokens: 64_000, stream: false, includeUsage: false };
    lowerOutputCap(request, 3_000);
    expect(request.maxOutputTokens).toBe(3_000);
  });

  it("lowers it in a Responses caller's body too, which Responses targets are sent as it came", () => {
    const request: ChatRequest = { messages: [], stream: false, includeUsage: false, responsesBody: { model: 'm', input: 'hi', max_output_tokens: 64_000 } };
    lowerOutputCap(request, 3_000);
    expect(request.responsesBody).toEqual({ model: 'm', input: 'hi', max_output_tokens: 3_000 });
  });

  it("lowers an Anthropic caller's thinking budget below the new cap, leaving its other fields as sent", () => {
    const request = withThinking({ type: 'enabled', budget_tokens: 31_999 });
    lowerOutputCap(request, 3_000);
    expect(request.passthrough).toEqual({ dialect: 'anthropic', fields: { thinking: { type: 'enabled', budget_tokens: 2_999 }, top_k: 5 } });
  });

  it('leaves a thinking budget already below the cap as it is', () => {
    const request = withThinking({ type: 'enabled', budget_tokens: 2_000 });
    lowerOutputCap(request, 3_000);
    expect(request.passthrough?.fields.thinking).toEqual({ type: 'enabled', budget_tokens: 2_000 });
  });

  it("turns thinking off when the cap leaves no room for Anthropic's smallest budget (1,024)", () => {
    const request = withThinking({ type: 'enabled', budget_tokens: 31_999 });
    lowerOutputCap(request, 1_024);
    expect(request.passthrough?.fields.thinking).toEqual({ type: 'disabled' });
  });

  it('leaves thinking without a budget (adaptive) alone', () => {
    const request = withThinking({ type: 'adaptive' });
    lowerOutputCap(request, 300);
    expect(request.passthrough?.fields.thinking).toEqual({ type: 'adaptive' });
  });
});
