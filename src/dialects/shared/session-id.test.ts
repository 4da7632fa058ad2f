import { describe, expect, it } from 'vitest';
import { MAX_SESSION_ID_CHARS, sessionHash, sessionIdOf } from './session-id.js';

const CLAUDE_CODE_SESSION = '3f0b7c1e-9a5d-4e8b-b2c4-6d1f0e7a9c35';
const CODEX_SESSION = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
/** Claude Code's `metadata.user_id`: a JSON string of device, account and session ids. */
const claudeCodeUserId = JSON.stringify({ device_id: 'a'.repeat(64), account_uuid: '', session_id: CLAUDE_CODE_SESSION });

describe('sessionIdOf', () => {
  it("reads Claude Code's x-claude-code-session-id header", () => {
    expect(sessionIdOf({ 'x-claude-code-session-id': CLAUDE_CODE_SESSION }, { model: 'claude-opus-5-5', metadata: { user_id: claudeCodeUserId } })).toBe(CLAUDE_CODE_SESSION);
  });

  it("reads Codex CLI's session-id header", () => {
    expect(sessionIdOf({ 'session-id': CODEX_SESSION }, { model: 'gpt-5', input: 'hi', prompt_cache_key: CODEX_SESSION })).toBe(CODEX_SESSION);
  });

  it('takes the first source that has one: x-switchyard-session, the two clients’ headers, prompt_cache_key, then metadata.user_id', () => {
    const headers = { 'x-switchyard-session': 'mine', 'x-claude-code-session-id': 'claude', 'session-id': 'codex' };
    const body = { prompt_cache_key: 'cache-key', metadata: { user_id: claudeCodeUserId } };
    expect(sessionIdOf(headers, body)).toBe('mine');
    expect(sessionIdOf({ ...headers, 'x-switchyard-session': undefined }, body)).toBe('claude');
    expect(sessionIdOf({ 'session-id': 'codex' }, body)).toBe('codex');
    expect(sessionIdOf({}, body)).toBe('cache-key');
    expect(sessionIdOf({}, { metadata: body.metadata })).toBe(CLAUDE_CODE_SESSION);
  });

  it("reads the session out of Claude Code's metadata.user_id, in the JSON form and the older underscore form", () => {
    expect(sessionIdOf({}, { metadata: { user_id: claudeCodeUserId } })).toBe(CLAUDE_CODE_SESSION);
    expect(sessionIdOf({}, { metadata: { user_id: `user_${'b'.repeat(64)}_account__session_${CLAUDE_CODE_SESSION}` } })).toBe(CLAUDE_CODE_SESSION);
    expect(sessionIdOf({}, { metadata: { user_id: `user_${'b'.repeat(64)}_account_${CODEX_SESSION}_session_${CLAUDE_CODE_SESSION}` } })).toBe(CLAUDE_CODE_SESSION);
  });

  it('ignores a metadata.user_id that holds no session: a plain user id, broken JSON, JSON without session_id', () => {
    for (const userId of ['user-1234', '{"session_id": ', JSON.stringify({ device_id: 'd' }), JSON.stringify({ session_id: 7 }), 42]) {
      expect(sessionIdOf({}, { metadata: { user_id: userId } })).toBeUndefined();
    }
  });

  it('passes over an empty, overlong or control-character value for the next source, and refuses nothing', () => {
    const tooLong = 's'.repeat(MAX_SESSION_ID_CHARS + 1);
    expect(sessionIdOf({ 'x-switchyard-session': tooLong }, { prompt_cache_key: 'cache-key' })).toBe('cache-key');
    expect(sessionIdOf({ 'x-switchyard-session': '' }, { prompt_cache_key: 'line\nbreak' })).toBeUndefined();
    expect(sessionIdOf({}, { prompt_cache_key: { nested: true } })).toBeUndefined();
    expect(sessionIdOf({ 'x-switchyard-session': 's'.repeat(MAX_SESSION_ID_CHARS) }, {})).toHaveLength(MAX_SESSION_ID_CHARS);
  });

  it('has none for a request without any, whatever its body', () => {
    for (const body of [undefined, null, 'text', [], { model: 'm' }, { metadata: null }]) expect(sessionIdOf({}, body)).toBeUndefined();
  });
});

describe('sessionHash', () => {
  it('is a fixed-length hex digest that does not contain the id, the same for the same id', () => {
    const hash = sessionHash(CLAUDE_CODE_SESSION);
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(hash).toBe(sessionHash(CLAUDE_CODE_SESSION));
    expect(hash).not.toBe(sessionHash(CODEX_SESSION));
  });
});
