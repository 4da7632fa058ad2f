import { readString, type JsonRecord } from '../shared/json-fields.js';

/** The output item types the canonical result carries itself (a reasoning item only by its summary). */
const CANONICAL_TYPES = new Set(['message', 'function_call', 'reasoning']);

/**
 * Whether an output item goes to a Responses caller as it came, beside the canonical answer:
 * reasoning the provider encrypted (the caller sends it back on the next turn, to the same
 * provider) and items of hosted tools (`web_search_call`, …) the canonical model has no form for.
 */
export function isPassedThroughItem(item: JsonRecord): boolean {
  const type = readString(item, 'type') ?? '';
  if (type === 'reasoning') return readString(item, 'encrypted_content') !== undefined;
  return type !== '' && !CANONICAL_TYPES.has(type);
}
