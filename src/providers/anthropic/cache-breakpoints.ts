import { isRecord, type JsonRecord } from '../shared/json-fields.js';

/** Anthropic refuses a request with more blocks carrying `cache_control` than this (a 400). */
const MAX_CACHE_BREAKPOINTS = 4;

type Path = readonly (string | number)[];

/**
 * Keeps only the last `MAX_CACHE_BREAKPOINTS` cache markers of a Messages body, in the order
 * Anthropic reads the prompt (tools, system, messages; a tool result's own blocks before the
 * result). A marker caches the whole prefix up to it, so the last ones keep the longest prefix
 * cached, and a conversation's rolling marker keeps moving forward. A top-level `cache_control`
 * (automatic caching) takes a slot too, at the end, where it marks the last block.
 *
 * The body's objects may be the caller's own (a `system` entry among the turns goes back as
 * sent), so a marker is removed from a copy of the path down to it, never from them.
 */
export function keepLastCacheBreakpoints(body: JsonRecord): void {
  const marked = markedPaths(body);
  for (const path of marked.slice(0, Math.max(0, marked.length - MAX_CACHE_BREAKPOINTS))) removeMarker(body, path);
}

function markedPaths(body: JsonRecord): Path[] {
  const paths: Path[] = [];
  const visitBlocks = (blocks: unknown, path: Path): void => {
    if (!Array.isArray(blocks)) return;
    blocks.forEach((block, index) => {
      if (!isRecord(block)) return;
      visitBlocks(block.content, [...path, index, 'content']);
      if (block.cache_control != null) paths.push([...path, index]);
    });
  };
  visitBlocks(body.tools, ['tools']);
  visitBlocks(body.system, ['system']);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  messages.forEach((message, index) => {
    if (isRecord(message)) visitBlocks(message.content, ['messages', index, 'content']);
  });
  if (body.cache_control != null) paths.push([]);
  return paths;
}

function removeMarker(body: JsonRecord, path: Path): void {
  let holder: JsonRecord | unknown[] = body;
  for (const key of path) {
    const child: unknown = (holder as Record<string | number, unknown>)[key];
    const copy = Array.isArray(child) ? [...child] : { ...(child as JsonRecord) };
    (holder as Record<string | number, unknown>)[key] = copy;
    holder = copy;
  }
  delete (holder as JsonRecord).cache_control;
}
