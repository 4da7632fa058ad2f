import { isRecord, type JsonRecord } from '../shared/json-fields.js';

/** Bedrock, like Anthropic, refuses a request with more cache checkpoints than this (a ValidationException). */
const MAX_CACHE_POINTS = 4;

/**
 * Claude models that take a cache point's `ttl` on Bedrock: from Claude 4.5 on (Bedrock added the
 * 1-hour TTL in January 2026, for Haiku, Sonnet and Opus 4.5). Older ones are sent no `ttl`, their
 * 5-minute default, rather than a field they may refuse.
 */
const CLAUDE_WITH_CACHE_TTL = /anthropic\.claude-(?:opus|sonnet|haiku)-(?:4-[5-9]|[5-9])(?!\d)/;

/**
 * Fits a Converse body's cache points to what the model takes: the last `MAX_CACHE_POINTS` in
 * the order Bedrock reads the prompt (tools, system, messages) — the last keep the longest
 * prefix cached — and their `ttl` only where the model takes one. The body is the adapter's own.
 */
export function fitCachePoints(body: JsonRecord, modelId: string): void {
  const points = cachePointPlaces(body);
  if (!CLAUDE_WITH_CACHE_TTL.test(modelId)) for (const { blocks, index } of points) delete (blocks[index] as { cachePoint: JsonRecord }).cachePoint.ttl;
  // From the end, so the places still to be removed keep their indexes.
  for (const { blocks, index } of points.slice(0, Math.max(0, points.length - MAX_CACHE_POINTS)).reverse()) blocks.splice(index, 1);
}

function cachePointPlaces(body: JsonRecord): { blocks: unknown[]; index: number }[] {
  const places: { blocks: unknown[]; index: number }[] = [];
  const visit = (blocks: unknown): void => {
    if (!Array.isArray(blocks)) return;
    blocks.forEach((block, index) => {
      if (isRecord(block) && isRecord(block.cachePoint)) places.push({ blocks, index });
    });
  };
  visit(isRecord(body.toolConfig) ? body.toolConfig.tools : undefined);
  visit(body.system);
  for (const message of Array.isArray(body.messages) ? body.messages : []) if (isRecord(message)) visit(message.content);
  return places;
}
