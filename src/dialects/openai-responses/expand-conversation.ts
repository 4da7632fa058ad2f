import { GatewayError } from '../../errors/gateway-error.js';

/**
 * Fields named `switchyard_…` are the gateway's own, added by the expansion for the parser and
 * never forwarded to a provider. `ORIGIN_FIELD`, on a reasoning item re-inserted from a stored
 * response: the provider (`connections.*.provider`) that made it, which the parser puts on the
 * canonical reasoning block as `origin`. `CONTINUES_FIELD`, on the body: the
 * `previous_response_id` it was expanded from, which the response object repeats.
 */
export const ORIGIN_FIELD = 'switchyard_origin';
export const CONTINUES_FIELD = 'switchyard_previous_response_id';

/** The earlier turn a `previous_response_id` names, as stored. */
export interface PreviousTurn {
  /** Its whole conversation's input items. */
  input: readonly unknown[];
  /** Its response object's `output` items. */
  output: readonly unknown[];
  /** The provider of the target that answered it. */
  provider: string;
}

/** The `previous_response_id` of a Responses body, when it names one. */
export function previousResponseIdOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const id = (body as Record<string, unknown>).previous_response_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The body with its conversation made whole: the earlier turn's input items, then its output
 * items, then the new input — and no `previous_response_id` (an upstream knows nothing of the
 * gateway's ids), so whichever target serves it, of whatever provider, reads the same items. `instructions` are the new request's alone (an
 * earlier turn's are not carried over, as OpenAI does it). An input neither string nor array is
 * left for the parser to refuse.
 */
export function expandConversation(body: Record<string, unknown>, previous: PreviousTurn): Record<string, unknown> {
  const { previous_response_id: id, ...rest } = body;
  const input = inputItemsOf(body.input);
  if (input === undefined) return rest;
  const output = previous.output.map((item) => (isReasoning(item) ? { ...item, [ORIGIN_FIELD]: previous.provider } : item));
  return { ...rest, input: [...previous.input, ...output, ...input], [CONTINUES_FIELD]: id };
}

/** A Responses input as items: a string is one user message. */
export function inputItemsOf(input: unknown): unknown[] | undefined {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return Array.isArray(input) ? input : undefined;
}

/** The refusal of an id that names no stored response the caller may use (unknown, deleted, expired, another key's). */
export function previousResponseNotFound(id: string): GatewayError {
  return new GatewayError(`Previous response with id '${printableId(id)}' not found.`, {
    status: 400,
    code: 'previous_response_not_found',
    type: 'invalid_request_error',
    param: 'previous_response_id',
  });
}

function isReasoning(item: unknown): item is Record<string, unknown> {
  return item !== null && typeof item === 'object' && (item as Record<string, unknown>).type === 'reasoning';
}

/** A caller's id goes into a message as a quoted name: keep it short and printable. */
export function printableId(id: string): string {
  const cut = id.length > 128 ? `${id.slice(0, 128)}…` : id;
  return cut.replace(/[^\x20-\x7e…]/g, '?');
}
