import { describe, expect, it } from 'vitest';
import { SchemaProblem, schemaValue } from './schema-value.js';

describe('schemaValue', () => {
  it('fills every property of an object, nested, with deterministic strings, numbers and booleans', () => {
    const value = schemaValue({
      type: 'object',
      properties: {
        name: { type: 'string' },
        age: { type: 'integer', minimum: 18, maximum: 99 },
        score: { type: 'number', exclusiveMinimum: 0, maximum: 0.5 },
        active: { type: 'boolean' },
        nothing: { type: 'null' },
        address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
      required: ['name', 'age'],
    });
    expect(value).toEqual({ name: 'w0', age: 18, score: 0.5, active: true, nothing: null, address: { city: 'w1' } });
    expect(schemaValue({ type: 'object', properties: { name: { type: 'string' } } })).toEqual({ name: 'w0' });
  });

  it('takes the first enum value, a const, the first non-null type and the first non-null branch', () => {
    expect(schemaValue({ type: 'string', enum: ['red', 'green'] })).toBe('red');
    expect(schemaValue({ const: 'fixed' })).toBe('fixed');
    expect(schemaValue({ type: ['null', 'integer'] })).toBe(1);
    expect(schemaValue({ anyOf: [{ type: 'null' }, { type: 'string', format: 'date-time' }] })).toBe('2026-01-01T00:00:00Z');
    expect(schemaValue({ oneOf: [{ type: 'number', multipleOf: 5 }] })).toBe(5);
  });

  it('makes arrays of at least one item within minItems / maxItems, tuples from prefixItems', () => {
    expect(schemaValue({ type: 'array', items: { type: 'integer' } })).toEqual([1]);
    expect(schemaValue({ type: 'array', items: { type: 'string' }, minItems: 3 })).toEqual(['w0', 'w1', 'w2']);
    expect(schemaValue({ type: 'array', items: { type: 'string' }, maxItems: 0 })).toEqual([]);
    expect(schemaValue({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }] })).toEqual(['w0', true]);
  });

  it('follows $ref into $defs and definitions, and ends recursive schemas', () => {
    const tree = schemaValue({
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
      $defs: {
        node: {
          type: 'object',
          properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
          required: ['label', 'children'],
        },
      },
    }) as { root: { label: string; children: unknown[] } };
    expect(tree.root.label).toBe('w0');
    expect(JSON.stringify(tree)).toContain('"children":[]');
    expect(schemaValue({ type: 'object', properties: { a: { $ref: '#/definitions/A' } }, definitions: { A: { type: 'integer' } } })).toEqual({ a: 1 });
  });

  it("reads Gemini's upper-case OpenAPI types, nullable and propertyOrdering", () => {
    const value = schemaValue({
      type: 'OBJECT',
      properties: { b: { type: 'INTEGER' }, a: { type: 'STRING', nullable: true } },
      propertyOrdering: ['a', 'b'],
    });
    expect(JSON.stringify(value)).toBe('{"a":"w0","b":1}');
  });

  it('honours string lengths and formats; merges allOf objects', () => {
    expect(schemaValue({ type: 'string', minLength: 5 })).toBe('w0www');
    expect(schemaValue({ type: 'string', format: 'email' })).toBe('w0@example.com');
    expect(schemaValue({ allOf: [{ type: 'object', properties: { a: { type: 'integer' } } }, { type: 'object', properties: { b: { type: 'boolean' } } }] })).toEqual({ a: 1, b: true });
  });

  it('keeps a member named __proto__ as a member', () => {
    const schema = JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "integer"}}}') as unknown;
    expect(JSON.stringify(schemaValue(schema))).toBe('{"__proto__":1}');
  });

  it('refuses, by name, schemas that have no value: a dangling $ref, impossible bounds, endless self-reference', () => {
    expect(() => schemaValue({ $ref: '#/$defs/missing' })).toThrow(new SchemaProblem('$ref "#/$defs/missing" does not resolve to a schema'));
    expect(() => schemaValue({ type: 'integer', minimum: 3, maximum: 2 })).toThrow(SchemaProblem);
    expect(() => schemaValue({ type: 'object', properties: { self: { $ref: '#' } }, required: ['self'] })).toThrow(/no finite value/);
    expect(() => schemaValue('not a schema')).toThrow(SchemaProblem);
  });
});
