/** How deeply a request body may nest objects and arrays (the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/**
 * The path to the first object or array nested deeper than `maxDepth` levels in a parsed JSON
 * value, or undefined when there is none. The walk recurses, but never past `maxDepth` frames, so
 * no input can overflow the stack here; that is the point of it, since deeper input would
 * overflow every recursive walk after it (translation, serialising the upstream body).
 */
export function tooDeepPath(value: unknown, maxDepth: number = MAX_JSON_DEPTH): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (maxDepth === 0) return [];
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const path = tooDeepPath(value[index], maxDepth - 1);
      if (path) {
        path.unshift(index);
        return path;
      }
    }
    return undefined;
  }
  for (const key in value) {
    const path = tooDeepPath((value as Record<string, unknown>)[key], maxDepth - 1);
    if (path) {
      path.unshift(key);
      return path;
    }
  }
  return undefined;
}
