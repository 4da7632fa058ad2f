import type { ProviderName } from './schema.js';

/** Providers this build can call; config naming another is rejected at load. */
export const SUPPORTED_PROVIDERS: ReadonlySet<ProviderName> = new Set(['openai', 'openai-compatible', 'anthropic', 'gemini', 'bedrock', 'vertex', 'azure-openai', 'mock']);
