import { GatewayError } from '../../errors/gateway-error.js';

/**
 * The field a reasoning item re-inserted from a stored response carries: the provider
 * (`connections.*.provider`) that made it. A Responses upstream of that provider gets the item
 * without it; every other target, nothing of the item.
 */
export const ORIGIN_FIELD = 'origin';

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
 * items, then the new input, so whichever target serves it, of whatever provider, reads the same
 * items. `previous_response_id` stays for the answer to repeat; it is the gateway's id, which no
 * upstream is sent. `instructions` are the new request's alone (an earlier turn's are not carried
 * over, as OpenAI does it). An input neither string nor array is left for the parser to refuse.
 */
export function expandConversation(body: Record<string, unknown>, previous: PreviousTurn): Record<string, unknown> {
  const input = inputItemsOf(body.input);
  if (input === undefined) return body;
  const output = previous.output.map((item) => (isReasoning(item) ? { ...item, [ORIGIN_FIELD]: previous.provider } : item));
  return { ...body, input: [...previous.input, ...output, ...input] };
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
