import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Longer values are not a session id anyone sends (they are UUIDs or short keys) and are ignored. */
export const MAX_SESSION_ID_CHARS = 256;

/** Any text of bounded length without control characters; anything else is not a session. */
const SESSION_ID = new RegExp(`^[^\\x00-\\x1f\\x7f]{1,${MAX_SESSION_ID_CHARS}}$`);

/** Claude Code before it sent JSON: `user_<hash>_account_<uuid>_session_<uuid>` (the account may be empty). */
const LEGACY_CLAUDE_CODE_USER_ID = /_session_([0-9A-Za-z-]+)$/;

/**
 * The caller's session (docs/sessions.md), from the first source that holds a usable one: the
 * `x-switchyard-session` header (any client), `x-claude-code-session-id` (Claude Code),
 * `session-id` (Codex CLI), the body's `prompt_cache_key` (OpenAI Chat Completions and Responses),
 * then the `session_id` inside Anthropic `metadata.user_id` (Claude Code). A value that is empty,
 * too long or holds control characters is passed over, never refused: a session only steers
 * routing, so a bad one must not cost the caller its answer.
 */
export function sessionIdOf(headers: IncomingHttpHeaders, body: unknown): string | undefined {
  for (const name of ['x-switchyard-session', 'x-claude-code-session-id', 'session-id']) {
    const value = usable(headers[name]);
    if (value !== undefined) return value;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { prompt_cache_key: promptCacheKey, metadata } = body as { prompt_cache_key?: unknown; metadata?: unknown };
  return usable(promptCacheKey) ?? (typeof metadata === 'object' && metadata !== null ? claudeCodeSession((metadata as { user_id?: unknown }).user_id) : undefined);
}

/**
 * What records and shared state keep instead of the session id, which may be a user's id: the
 * first 128 bits of its SHA-256, in hex. Unsalted on purpose, so an operator who knows an id can
 * find its records.
 */
export function sessionHash(sessionId: string): string {
  return hash('sha256', sessionId, 'hex').slice(0, 32);
}

/** Claude Code's `metadata.user_id`: a JSON object holding `session_id`, or the older underscore form. */
function claudeCodeSession(userId: unknown): string | undefined {
  if (typeof userId !== 'string') return undefined;
  if (userId.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(userId);
      return typeof parsed === 'object' && parsed !== null ? usable((parsed as { session_id?: unknown }).session_id) : undefined;
    } catch {
      return undefined;
    }
  }
  return usable(LEGACY_CLAUDE_CODE_USER_ID.exec(userId)?.[1]);
}

function usable(value: unknown): string | undefined {
  return typeof value === 'string' && SESSION_ID.test(value) ? value : undefined;
}
