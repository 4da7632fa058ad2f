/**
 * Canonical ids for Gemini function calls. Gemini seldom issues call ids of its own, yet Gemini 3
 * rejects a follow-up turn whose function call lacks the `thoughtSignature` it came with, and the
 * canonical ToolCall has no field for it. So the id carries it: whichever client holds the
 * conversation sends the id back with the call and with its result, and `buildRequest` restores it.
 *
 *     gm<kind><stem length>_<stem><signature>
 *
 * - kind `i`: the stem is Gemini's own `functionCall.id`, sent back as `id`;
 *   kind `x`: the stem is made here — `<call index>-<start of responseId>`, so that ids stay
 *   unique across the turns of a conversation — and is not sent back.
 * - The stem's length (decimal) separates it from the signature without escaping either.
 * - signature: the thoughtSignature in base64url without padding; empty when there is none.
 *
 * Only `[A-Za-z0-9_-]` appear (unless Gemini's own id has others), which every provider accepts
 * in tool-call ids:
 * `gmx14_0-FugfaZasF6ra` without a signature, `gmx14_0-m36LaZGyCLz1EskgCsYgAb4-9vtF7_499…` with one.
 * An id of any other form (a call made by another provider) restores nothing.
 */

export interface GeminiCallReference {
  /** Gemini's own `functionCall.id`, when it gave one. */
  geminiId?: string;
  /** The part's `thoughtSignature`, in standard base64 as Gemini sent it. */
  signature?: string;
}

export interface ToolCallIdInput extends GeminiCallReference {
  /** The call's position among the response's function calls. */
  index: number;
  responseId?: string;
}

/** Enough of a responseId to tell the turns of one conversation apart. */
const RESPONSE_ID_CHARS = 12;
const ID_HEAD = /^gm([ix])(\d{1,4})_/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function toolCallIdOf(input: ToolCallIdInput): string {
  const { geminiId, signature } = input;
  const kind = geminiId === undefined ? 'x' : 'i';
  const stem = geminiId ?? madeUpStem(input);
  // A signature that is not base64 cannot be valid; it is left out rather than garbled.
  const encodedSignature = signature !== undefined && BASE64.test(signature) ? toBase64Url(signature) : '';
  return `gm${kind}${stem.length}_${stem}${encodedSignature}`;
}

export function readToolCallId(id: string): GeminiCallReference {
  const head = ID_HEAD.exec(id);
  if (head === null) return {};
  const rest = id.slice(head[0].length);
  const stemLength = Number(head[2]);
  const encodedSignature = rest.slice(stemLength);
  if (rest.length < stemLength || !BASE64URL.test(encodedSignature)) return {};
  return {
    geminiId: head[1] === 'i' ? rest.slice(0, stemLength) : undefined,
    signature: encodedSignature === '' ? undefined : fromBase64Url(encodedSignature),
  };
}

function madeUpStem({ index, responseId }: ToolCallIdInput): string {
  const responsePart = (responseId ?? '').replace(/[^A-Za-z0-9_-]/g, '').slice(0, RESPONSE_ID_CHARS);
  return responsePart === '' ? String(index) : `${index}-${responsePart}`;
}

function toBase64Url(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(base64url: string): string {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  return base64.padEnd(Math.ceil(base64.length / 4) * 4, '=');
}
