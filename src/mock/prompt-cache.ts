/**
 * The mock's prompt cache, kept as the providers keep theirs: by prompt prefix, per key and model,
 * for minutes. A request reads the longest prefix of its prompt an earlier request wrote, and
 * writes its own prefixes, so an agent's second turn, which repeats the first turn's prompt and
 * adds to it, reads the repeated part and writes the new one — whatever session it belongs to,
 * as a provider knows no sessions, only prompts.
 */
import { createHash } from 'node:crypto';
import type { CacheablePrompt, CacheTtl } from './cacheable-prompt.js';
import type { CacheUsage } from './directives.js';

/** The shortest prefix the providers cache (Anthropic's and OpenAI's 1,024 tokens); shorter prompts are never hashed. */
export const MIN_CACHED_PROMPT_TOKENS = 1024;

const ttlMs: Record<CacheTtl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/** Enough for the sessions of a test run or a demo; a bench's prompts are too short to be kept. */
const DEFAULT_MAX_ENTRIES = 10_000;

const noUsage: CacheUsage = { readTokens: 0, writeTokens: 0, writeTtl: '5m' };

interface Boundary {
  digest: string;
  /** The prompt tokens up to and including this block. */
  tokens: number;
  breakpoint?: CacheTtl;
}

export class PromptCache {
  /** Prefix digest → when it expires; in order of last use, so the first is the one to drop. */
  private readonly expiresAtMs = new Map<string, number>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  /**
   * What `prompt` reads from the cache and writes to it, within `scope` (a key and a model), at
   * `nowMs`. A read refreshes its prefix's lifetime, as at the providers. Only `explicit` caching
   * reports writes: OpenAI and Gemini bill what they write as plain prompt tokens.
   */
  use(scope: string, prompt: CacheablePrompt, nowMs: number): CacheUsage {
    const boundaries = prefixBoundaries(scope, prompt);
    const lastWritable = prompt.caching === 'automatic' ? boundaries.length - 1 : boundaries.findLastIndex((boundary) => boundary.breakpoint);
    if (lastWritable === -1 || boundaries[lastWritable]!.tokens < MIN_CACHED_PROMPT_TOKENS) return noUsage;
    let readTokens = 0;
    for (let index = lastWritable; index >= 0; index--) {
      const boundary = boundaries[index]!;
      if (this.live(boundary.digest, nowMs)) {
        readTokens = boundary.tokens;
        this.keep(boundary.digest, nowMs + ttlMs[boundary.breakpoint ?? '5m']);
        break;
      }
    }
    for (let index = 0; index <= lastWritable; index++) {
      const boundary = boundaries[index]!;
      // A provider that caches by itself finds any earlier prefix again (OpenAI in 128-token steps); here, at any block's end.
      const written = prompt.caching === 'automatic' || boundary.breakpoint !== undefined;
      if (written && boundary.tokens >= MIN_CACHED_PROMPT_TOKENS && boundary.tokens > readTokens) this.keep(boundary.digest, nowMs + ttlMs[boundary.breakpoint ?? '5m']);
    }
    if (prompt.caching === 'automatic') return { ...noUsage, readTokens };
    const last = boundaries[lastWritable]!;
    return { readTokens, writeTokens: last.tokens - readTokens, writeTtl: last.breakpoint ?? '5m' };
  }

  clear(): void {
    this.expiresAtMs.clear();
  }

  private live(digest: string, nowMs: number): boolean {
    const expiresAtMs = this.expiresAtMs.get(digest);
    if (expiresAtMs === undefined) return false;
    if (expiresAtMs > nowMs) return true;
    this.expiresAtMs.delete(digest);
    return false;
  }

  private keep(digest: string, expiresAtMs: number): void {
    this.expiresAtMs.delete(digest);
    this.expiresAtMs.set(digest, expiresAtMs);
    if (this.expiresAtMs.size > this.maxEntries) this.expiresAtMs.delete(this.expiresAtMs.keys().next().value!);
  }
}

/**
 * Each block's prefix as one digest (chained, so a prefix is hashed once however long the prompt)
 * with its tokens: whole tokens of the characters so far, rounded down, so reads and writes never
 * add up to more than the request's counted input (`ceil(characters / 4)`).
 */
function prefixBoundaries(scope: string, prompt: CacheablePrompt): Boundary[] {
  const hash = createHash('sha256').update(scope).update('\0');
  let characters = 0;
  return prompt.blocks.map((block) => {
    // JSON text never holds a raw newline, so the separator keeps blocks apart.
    hash.update(block.key).update('\n');
    characters += block.characters;
    return { digest: hash.copy().digest('base64'), tokens: Math.floor(characters / 4), ...(block.breakpoint ? { breakpoint: block.breakpoint } : {}) };
  });
}
