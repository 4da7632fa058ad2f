/**
 * A request's prompt as a provider's prompt cache sees it: blocks in the order the provider reads
 * them, each compared whole, so a later turn that repeats an earlier prompt matches it block by
 * block up to where it goes on.
 */
import type { UpstreamDialect } from '../providers/spec.js';
import { asRecord, isRecord, textLength } from './answer.js';

export type CacheTtl = '5m' | '1h';

export interface PromptBlock {
  /** The block as the cache compares it: its JSON, cache markers left out (they mark, they are not content). */
  key: string;
  /** Its text, counted as the mock counts input tokens (tools and tool calls count none). */
  characters: number;
  /** A cache breakpoint right after this block, and the TTL it asks for. */
  breakpoint?: CacheTtl;
}

export interface CacheablePrompt {
  blocks: PromptBlock[];
  /**
   * `explicit` (Anthropic, Bedrock): only the prefixes up to a breakpoint the request marks are
   * written; `automatic` (OpenAI, Gemini): every prompt is, as those providers cache by themselves.
   */
  caching: 'explicit' | 'automatic';
}

export function cacheablePrompt(dialect: UpstreamDialect, body: Record<string, unknown>): CacheablePrompt {
  switch (dialect) {
    case 'anthropic':
      return { blocks: anthropicBlocks(body), caching: 'explicit' };
    case 'bedrock':
      return { blocks: bedrockBlocks(body), caching: 'explicit' };
    case 'openai':
      return { blocks: [...wholeBlocks(body.tools), ...list(body.messages).map((message) => block(message, asRecord(message)?.content))], caching: 'automatic' };
    case 'openai-responses': {
      const input = typeof body.input === 'string' ? [block(body.input, body.input)] : list(body.input).map((item) => block(item, asRecord(item)?.content));
      return { blocks: [...wholeBlocks(body.tools), ...wholeBlocks(body.instructions, body.instructions), ...input], caching: 'automatic' };
    }
    case 'gemini': {
      // Gemini's REST API takes snake_case field names too.
      const instruction = body.systemInstruction ?? body.system_instruction;
      const contents = list(body.contents).map((content) => block(content, asRecord(content)?.parts));
      return { blocks: [...wholeBlocks(body.tools), ...wholeBlocks(instruction, asRecord(instruction)?.parts), ...contents], caching: 'automatic' };
    }
  }
}

/** Tools, then the system prompt, then the turns' content blocks: Anthropic's order, markers on any of them. */
function anthropicBlocks(body: Record<string, unknown>): PromptBlock[] {
  const blocks = list(body.tools).map((tool) => block(tool, undefined, anthropicTtl(tool)));
  for (const part of contentParts(body.system)) blocks.push(block(part, [part], anthropicTtl(part)));
  for (const message of list(body.messages)) {
    const role = asRecord(message)?.role;
    for (const part of contentParts(asRecord(message)?.content)) blocks.push(block({ role, part }, [part], anthropicTtl(part)));
  }
  // The top-level marker (automatic caching) marks the end of the prompt.
  const last = blocks.at(-1);
  const automatic = anthropicTtl(body);
  if (last && automatic) last.breakpoint = automatic;
  return blocks;
}

/** Anthropic's `cache_control` on a block, or inside a tool result's content, which marks the whole result. */
function anthropicTtl(value: unknown): CacheTtl | undefined {
  const part = asRecord(value);
  const marker = asRecord(part?.cache_control);
  if (marker) return marker.ttl === '1h' ? '1h' : '5m';
  return list(part?.content).reduce<CacheTtl | undefined>((ttl, inner) => anthropicTtl(inner) ?? ttl, undefined);
}

/** Tools, system, then the turns' content blocks; a `cachePoint` entry marks the block before it. */
function bedrockBlocks(body: Record<string, unknown>): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (entries: unknown, role?: unknown): void => {
    for (const entry of list(entries)) {
      const cachePoint = asRecord(asRecord(entry)?.cachePoint);
      const previous = blocks.at(-1);
      if (cachePoint) {
        if (previous) previous.breakpoint = cachePoint.ttl === '1h' ? '1h' : '5m';
      } else blocks.push(block(role === undefined ? entry : { role, entry }, [entry]));
    }
  };
  add(asRecord(body.toolConfig)?.tools);
  add(body.system);
  for (const message of list(body.messages)) add(asRecord(message)?.content, asRecord(message)?.role);
  return blocks;
}

function block(value: unknown, text: unknown, breakpoint?: CacheTtl): PromptBlock {
  return { key: JSON.stringify(value, withoutMarkers) ?? '', characters: textLength(text), ...(breakpoint ? { breakpoint } : {}) };
}

/** A field compared whole (tools, instructions), when the request has it. */
function wholeBlocks(value: unknown, text?: unknown): PromptBlock[] {
  return value === undefined ? [] : [block(value, text)];
}

function withoutMarkers(key: string, value: unknown): unknown {
  return key === 'cache_control' ? undefined : value;
}

/** A string content is one text block, as Anthropic reads it. */
function contentParts(content: unknown): unknown[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : list(content).filter(isRecord);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
