import { readString, type JsonRecord } from '../shared/json-fields.js';

/**
 * A called function's canonical name: a function of a `namespace` group comes back under its
 * own name with the namespace beside it, and canonical names are flat, joined as the Responses
 * dialect joins them for translated targets (`namespace__name`), so it splits them back alike.
 */
export function calledToolName(item: JsonRecord): string {
  const name = readString(item, 'name') ?? '';
  const namespace = readString(item, 'namespace');
  return namespace ? `${namespace}__${name}` : name;
}
