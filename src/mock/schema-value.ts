/**
 * A deterministic JSON value that fits a JSON Schema (and Gemini's OpenAPI-style `responseSchema`,
 * whose types are upper case): what the mock answers when a request asks for structured output,
 * so clients that parse and validate the answer (`chat.completions.parse`, `generateObject`,
 * `withStructuredOutput`) can be tried against it.
 *
 * Covered: `type` (one or a list), `enum`, `const`, objects (every listed property, in
 * `propertyOrdering` when given), arrays (`minItems` / `maxItems`, `items`, `prefixItems`),
 * strings (`minLength` / `maxLength`, common `format`s), numbers and integers (bounds,
 * `multipleOf`), booleans, null, `nullable`, `anyOf` / `oneOf` (the first branch), `allOf` (objects
 * merged), and `$ref` to `#/$defs/…`, `#/definitions/…` or any other pointer into the schema.
 * `pattern` is not honoured.
 */

/** Why no value could be made: the mock answers it as a 400. */
export class SchemaProblem extends Error {}

type Schema = Record<string, unknown>;

/** Past this depth the smallest value is chosen (empty arrays, null, no optional members), so recursive schemas end. */
const MINIMAL_AFTER_DEPTH = 6;
/** A schema that still nests this deep has no finite value (a required member that refers to itself). */
const MAX_DEPTH = 64;

const FORMATTED_STRINGS: Readonly<Record<string, string>> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00',
  email: 'w0@example.com',
  uri: 'https://example.com/w0',
  url: 'https://example.com/w0',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  hostname: 'example.com',
  duration: 'PT1S',
};

export function schemaValue(root: unknown): unknown {
  if (!isSchema(root)) throw new SchemaProblem('the schema must be a JSON object');
  let strings = 0;

  const valueOf = (schema: Schema, depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new SchemaProblem('the schema has no finite value (it refers to itself without end)');
    const minimal = depth > MINIMAL_AFTER_DEPTH;
    if (typeof schema.$ref === 'string') return valueOf(resolve(root, schema.$ref), depth + 1);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
    const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (branches && branches.length > 0) return valueOf(pickBranch(branches.filter(isSchema), minimal), depth + 1);
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return mergedValue(schema.allOf.filter(isSchema), depth);
    if (minimal && schema.nullable === true) return null;

    switch (typeOf(schema, minimal)) {
      case 'null':
        return null;
      case 'boolean':
        return true;
      case 'integer':
        return numberIn(schema, true);
      case 'number':
        return numberIn(schema, false);
      case 'string':
        return stringFor(schema, strings++);
      case 'array':
        return arrayOf(schema, depth, minimal);
      case 'object':
        return objectOf(schema, depth, minimal);
      default:
        // No type: what its keywords describe, else any value will do.
        if (schema.properties !== undefined) return objectOf(schema, depth, minimal);
        if (schema.items !== undefined || schema.prefixItems !== undefined) return arrayOf(schema, depth, minimal);
        return stringFor(schema, strings++);
    }
  };

  const objectOf = (schema: Schema, depth: number, minimal: boolean): Record<string, unknown> => {
    const properties = isSchema(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : []);
    const ordering = Array.isArray(schema.propertyOrdering) ? schema.propertyOrdering.filter((name) => typeof name === 'string') : [];
    const names = [...new Set([...ordering, ...Object.keys(properties), ...required])];
    // No prototype: a member named `__proto__` is a member like any other.
    const value: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const name of names) {
      if (minimal && !required.has(name)) continue;
      const member = properties[name];
      value[name] = isSchema(member) ? valueOf(member, depth + 1) : `w${strings++}`;
    }
    return value;
  };

  const arrayOf = (schema: Schema, depth: number, minimal: boolean): unknown[] => {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems.filter(isSchema) : Array.isArray(schema.items) ? schema.items.filter(isSchema) : [];
    const items = isSchema(schema.items) ? schema.items : undefined;
    const minItems = nonNegative(schema.minItems) ?? 0;
    const maxItems = nonNegative(schema.maxItems) ?? Number.MAX_SAFE_INTEGER;
    const count = Math.min(maxItems, Math.max(minItems, minimal ? 0 : Math.max(1, prefix.length)));
    const value: unknown[] = [];
    for (let index = 0; index < count; index++) {
      const item = prefix[index] ?? items;
      value.push(item ? valueOf(item, depth + 1) : `w${strings++}`);
    }
    return value;
  };

  const mergedValue = (parts: Schema[], depth: number): unknown => {
    const values = parts.map((part) => valueOf(part, depth + 1));
    if (values.every((value) => typeof value === 'object' && value !== null && !Array.isArray(value))) return Object.assign(Object.create(null), ...values) as unknown;
    return values[0];
  };

  return valueOf(root, 0);
}

/** The first branch; deep in a recursive schema, a null branch when there is one, so the value ends. */
function pickBranch(branches: Schema[], minimal: boolean): Schema {
  if (branches.length === 0) throw new SchemaProblem('anyOf / oneOf has no schema in it');
  if (minimal) return branches.find((branch) => branch.type === 'null') ?? branches[0]!;
  return branches.find((branch) => branch.type !== 'null') ?? branches[0]!;
}

function typeOf(schema: Schema, minimal: boolean): string | undefined {
  const declared = schema.type;
  if (typeof declared === 'string') return declared.toLowerCase();
  if (!Array.isArray(declared)) return undefined;
  const types = declared.filter((type): type is string => typeof type === 'string').map((type) => type.toLowerCase());
  if (minimal && types.includes('null')) return 'null';
  return types.find((type) => type !== 'null') ?? types[0];
}

function numberIn(schema: Schema, integer: boolean): number {
  let low = finite(schema.minimum) ?? -Infinity;
  let high = finite(schema.maximum) ?? Infinity;
  // Draft 4 writes exclusive bounds as booleans beside minimum / maximum.
  const exclusiveLow = schema.exclusiveMinimum === true ? low : finite(schema.exclusiveMinimum);
  const exclusiveHigh = schema.exclusiveMaximum === true ? high : finite(schema.exclusiveMaximum);
  if (integer) {
    low = exclusiveLow === undefined ? Math.ceil(low) : Math.max(Math.ceil(low), Math.floor(exclusiveLow) + 1);
    high = exclusiveHigh === undefined ? Math.floor(high) : Math.min(Math.floor(high), Math.ceil(exclusiveHigh) - 1);
  } else {
    // Inside an open bound: halfway to the other bound, or 0.5 past it.
    if (exclusiveLow !== undefined) low = Math.max(low, exclusiveLow + Math.min(0.5, (Math.min(high, exclusiveHigh ?? high) - exclusiveLow) / 2));
    if (exclusiveHigh !== undefined) high = Math.min(high, exclusiveHigh - Math.min(0.5, (exclusiveHigh - low) / 2));
  }
  if (!(low <= high)) throw new SchemaProblem(`no ${integer ? 'integer' : 'number'} lies between the schema's bounds`);
  let value = Math.min(Math.max(1, low), high);
  const multipleOf = finite(schema.multipleOf);
  if (multipleOf !== undefined && multipleOf > 0) {
    value = Math.ceil(value / multipleOf) * multipleOf;
    if (value > high) value = Math.floor(high / multipleOf) * multipleOf;
    if (value < low) throw new SchemaProblem(`no multiple of ${multipleOf} lies between the schema's bounds`);
  }
  return value;
}

/** `w<k>` like the mock's answer words (k counts the strings of the answer), or a value of the string's format. */
function stringFor(schema: Schema, index: number): string {
  const formatted = typeof schema.format === 'string' ? FORMATTED_STRINGS[schema.format] : undefined;
  let text = formatted ?? `w${index}`;
  const minLength = nonNegative(schema.minLength);
  const maxLength = nonNegative(schema.maxLength);
  if (minLength !== undefined && text.length < minLength) text = text.padEnd(minLength, 'w');
  if (maxLength !== undefined && text.length > maxLength) text = text.slice(0, maxLength);
  return text;
}

/** A `$ref` as a JSON pointer into the root schema (`#`, `#/$defs/Name`, `#/definitions/Name`, …). */
function resolve(root: Schema, ref: string): Schema {
  if (!ref.startsWith('#')) throw new SchemaProblem(`$ref "${ref}" points outside the schema`);
  let target: unknown = root;
  for (const token of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');
    target = isSchema(target) || Array.isArray(target) ? (target as Record<string, unknown>)[key] : undefined;
  }
  if (!isSchema(target)) throw new SchemaProblem(`$ref "${ref}" does not resolve to a schema`);
  return target;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

