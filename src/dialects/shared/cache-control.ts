import { z } from 'zod';
import type { CacheControl } from '../../providers/spec.js';

/** Anthropic's `cache_control` marker, as Anthropic accepts it. */
export const cacheControlSchema = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() });

/** A marker in a dialect that has none of its own (OpenAI Chat): kept when Anthropic would take it, else left out. */
export function readCacheControl(value: unknown): CacheControl | undefined {
  const parsed = cacheControlSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
