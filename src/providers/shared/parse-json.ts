export type JsonParseResult = { ok: true; value: unknown } | { ok: false };

/** JSON.parse without throwing: upstream bodies and stream events are routinely not JSON. */
export function parseJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
