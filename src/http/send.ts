import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import type { Redact } from '../records/redact-secrets.js';
import type { ResolvedTarget } from '../routing/resolve-route.js';
import { type CallerDialect } from '../dialects/caller-dialect.js';
import { OPENAI_CHAT } from '../dialects/openai-chat/openai-chat.js';

/** A JSON body already in its text (a relayed provider answer): sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * Sends a JSON response; returns the text sent (idempotency keeps it for replay). The head is
 * written from `headers` itself, which gains the content headers: pass an object of your own.
 */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): string {
  const text = body instanceof JsonText ? body.text : JSON.stringify(body);
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(text));
  response.writeHead(status, headers);
  response.end(text);
  return text;
}

/** Headers that tell a caller whether (and when) resending could help. */
export function retryHeaders(retryAfterMs: number | undefined): Record<string, string> {
  if (retryAfterMs === undefined) return { 'x-should-retry': 'false' };
  return {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
    'retry-after-ms': String(Math.max(0, Math.round(retryAfterMs))),
  };
}

/** An error the gateway raised itself, in the caller's dialect (the OpenAI envelope by default). */
export function sendGatewayError(
  response: ServerResponse,
  error: GatewayError,
  requestId: string,
  dialect: Pick<CallerDialect, 'errorBody'> = OPENAI_CHAT,
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = dialect.errorBody({ status: error.status, code: error.code, type: error.type, message: error.message, param: error.param ?? null, requestId });
  sendJson(response, error.status, body, retryHeaders(error.retryAfterMs));
}

/**
 * What a successful answer says about how it was served (README.md, HTTP API). Written after the attempt was
 * billed, so it must never be a value Node refuses: names from the config may hold anything. The
 * name passes the same redaction as every string the gateway sends.
 */
export function servedHeaders(served: ResolvedTarget, attempts: number, redact: Redact): Record<string, string> {
  return { 'x-switchyard-served-by': servedByValue(served, redact), 'x-switchyard-attempts': String(attempts) };
}

/**
 * A named route's targets live as long as their config snapshot, and so does its redactor: the
 * header value is worked out once per target, not on every answer.
 */
const servedByValues = new WeakMap<ResolvedTarget, { redact: Redact; value: string }>();

function servedByValue(served: ResolvedTarget, redact: Redact): string {
  const known = servedByValues.get(served);
  if (known?.redact === redact) return known.value;
  const value = headerSafe(redact(`${served.connectionName}/${served.routedModel}`));
  servedByValues.set(served, { redact, value });
  return value;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * `text` as a header value every client reads the same way: unchanged when it is printable
 * ASCII (every real name), else with each other character (and `%`) percent-encoded as UTF-8.
 */
export function headerSafe(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text;
  let safe = '';
  for (const character of text) {
    if (character >= ' ' && character <= '~' && character !== '%') safe += character;
    else for (const byte of Buffer.from(character, 'utf8')) safe += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return safe;
}

/** For answers that must not be cached (admin views); a fresh object, since `sendJson` takes it over. */
export function noStore(): Record<string, string> {
  return { 'cache-control': 'no-store' };
}
