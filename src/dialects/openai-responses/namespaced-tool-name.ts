/** Between a namespace and a function's name in the flat name a translated target sees. */
const SEPARATOR = '__';

/**
 * The flat name of a function in a `namespace` group, for targets without namespaces. Chat and
 * Anthropic tool names allow letters, digits, `_` and `-` only, so the join is `__`.
 */
export function namespacedToolName(namespace: string, name: string): string {
  return `${namespace}${SEPARATOR}${name}`;
}

/**
 * A called tool's name as the caller declared it: a flat name of one of its namespace groups'
 * functions is split back into `namespace` and `name`; any other name is as it came.
 */
export function declaredToolName(flatName: string, tools: readonly unknown[]): { name: string; namespace?: string } {
  for (const tool of tools) {
    const group = tool as { type?: unknown; name?: unknown; tools?: unknown };
    if (group.type !== 'namespace' || typeof group.name !== 'string' || !Array.isArray(group.tools)) continue;
    if (!flatName.startsWith(`${group.name}${SEPARATOR}`)) continue;
    const name = flatName.slice(group.name.length + SEPARATOR.length);
    if (group.tools.some((member) => (member as { type?: unknown; name?: unknown }).type === 'function' && (member as { name?: unknown }).name === name)) {
      return { name, namespace: group.name };
    }
  }
  return { name: flatName };
}
