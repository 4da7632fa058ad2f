/** Tokens one answer used, as the provider reported them or the gateway counted them. */
export interface Usage {
  /** All prompt tokens, cached ones included (OpenAI's `prompt_tokens` meaning). */
  inputTokens: number;
  /** All generated tokens, reasoning included. */
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Of `cacheWriteTokens`, those written to the 1-hour cache (Anthropic, Claude on Bedrock), billed above 5-minute writes. */
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
  /** Counted by the gateway (the stream died before the provider reported usage). */
  estimated?: boolean;
}
