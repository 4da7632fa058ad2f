import { modelIdentity } from './model-catalog.js';

/**
 * The catalog's models whose price depends on the endpoint that serves them. From Claude Sonnet
 * 4.5 and Haiku 4.5 on, Vertex AI's regional endpoints and Bedrock's in-region and geographic
 * (`us.`, `eu.`, `apac.` …) inference profiles cost 10 % more than the global ones, which cost
 * the list price (Anthropic's own API). Older Claude models (Sonnet 4, Opus 4.1, 3.5 Haiku) kept
 * one price everywhere. As published in 2025–2026: Anthropic's "Claude on Vertex AI" page
 * (global vs regional endpoints: the global endpoint carries no premium, from Sonnet 4.5 on) and
 * AWS's "Global cross-Region inference" page (the global profile about 10 % below the geographic ones).
 */
const PRICED_BY_ENDPOINT: ReadonlySet<string> = new Set(['claude-sonnet-4-5', 'claude-haiku-4-5']);

const REGIONAL_PREMIUM = 1.1;

/**
 * What `model` costs at its home next to the catalog's list price: 1.1 for a model priced by
 * endpoint on a regional Vertex location (anything but `global`) or a Bedrock id that is not a
 * `global.` profile, else 1. `provider` is the connection's provider; `location` is Vertex's
 * (a region or `global`) and is read for no other provider.
 */
export function homePriceFactor(provider: string, location: string | undefined, model: string): number {
  if (!PRICED_BY_ENDPOINT.has(modelIdentity(model))) return 1;
  if (provider === 'vertex') return location === 'global' ? 1 : REGIONAL_PREMIUM;
  if (provider === 'bedrock') return isGlobalProfile(model) ? 1 : REGIONAL_PREMIUM;
  return 1;
}

/** `global.anthropic.claude-…`, also inside an ARN (`…:inference-profile/global.anthropic.claude-…`). */
function isGlobalProfile(model: string): boolean {
  return model.slice(model.lastIndexOf('/') + 1).startsWith('global.');
}
