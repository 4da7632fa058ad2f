import type { ChatRequest, UpstreamDialect } from '../spec.js';
import type { JsonRecord } from './json-fields.js';

/**
 * Adds the caller's passthrough fields to a provider body when the target speaks the caller's
 * dialect. A passthrough field never replaces one the adapter built, and `excludedKeys` names
 * fields the adapter decides on even when it left them out.
 */
export function mergePassthrough(
  body: JsonRecord,
  request: ChatRequest,
  dialect: UpstreamDialect,
  excludedKeys: ReadonlySet<string> = new Set(),
): void {
  if (request.passthrough?.dialect !== dialect) return;
  for (const [key, value] of Object.entries(request.passthrough.fields)) {
    if (body[key] !== undefined || excludedKeys.has(key)) continue;
    body[key] = value;
  }
}
