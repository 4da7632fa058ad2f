import { z } from 'zod';
import { isRecord } from './is-record.js';

/**
 * The keys the schema allows in the mapping at `path` of `root` (the file's values, which pick
 * the branch of a union such as `store.kind`), for a "did you mean" on an unknown key.
 */
export function keysAllowedAt(schema: z.ZodType, path: readonly PropertyKey[], root: unknown): string[] {
  let current: z.ZodType | undefined = schema;
  let value = root;
  for (const segment of path) {
    current = current && child(objectOf(current, value), segment);
    value = isRecord(value) || Array.isArray(value) ? (value as Record<PropertyKey, unknown>)[segment] : undefined;
  }
  const mapping = current && objectOf(current, value);
  if (mapping instanceof z.ZodObject) return Object.keys(mapping.shape);
  // A record keyed by an enum (`routes.*.on`, keyed by failure kind) allows its options.
  if (mapping instanceof z.ZodRecord && mapping.keyType instanceof z.ZodEnum) return mapping.keyType.options.map(String);
  return [];
}

/** Looks through defaults, optionals and unions to the schema that applies to `value`. */
function objectOf(schema: z.ZodType, value: unknown): z.ZodType {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodOptional) return objectOf(schema.unwrap() as z.ZodType, value);
  if (schema instanceof z.ZodUnion) {
    const objects = (schema.options as z.ZodType[]).filter((option): option is z.ZodObject => option instanceof z.ZodObject);
    const kind = isRecord(value) ? value.kind : undefined;
    const matching = objects.find((option) => {
      const discriminator = option.shape.kind;
      return discriminator instanceof z.ZodLiteral && discriminator.values.has(kind as z.core.util.Literal);
    });
    return matching ?? objects[0] ?? schema;
  }
  return schema;
}

function child(schema: z.ZodType, segment: PropertyKey): z.ZodType | undefined {
  if (schema instanceof z.ZodObject) return (schema.shape as Record<PropertyKey, z.ZodType>)[segment];
  if (schema instanceof z.ZodRecord) return schema.valueType as z.ZodType;
  if (schema instanceof z.ZodArray) return schema.element as z.ZodType;
  return undefined;
}
