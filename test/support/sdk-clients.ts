import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

// The SDKs' own retries would hide the gateway's attempts from the test; the timeout bounds a hang.
const CLIENT_OPTIONS = { maxRetries: 0, timeout: 10_000 } as const;

/** The official OpenAI SDK pointed at the gateway (`apiKey` matters only in keys mode). */
export function openAiClient(gatewayUrl: string, apiKey = 'unused'): OpenAI {
  return new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey, ...CLIENT_OPTIONS });
}

/** The official Anthropic SDK pointed at the gateway (`apiKey` matters only in keys mode). */
export function anthropicClient(gatewayUrl: string, apiKey = 'unused'): Anthropic {
  return new Anthropic({ baseURL: gatewayUrl, apiKey, ...CLIENT_OPTIONS });
}
