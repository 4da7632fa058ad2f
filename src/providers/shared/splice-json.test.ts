import fc from 'fast-check';
import { expect, it } from 'vitest';
import { spliceTopLevel } from './splice-json.js';

it('replaces, removes and appends members and leaves every other byte as written', () => {
  const text = '{ "model" : "route",\n  "z_unknown": {"a": [1, "}"]}, "n": 1.0, "s": "\\u00e9\\"" }';
  expect(spliceTopLevel(text, { model: '"gpt-4.1"' })).toBe('{ "model" : "gpt-4.1",\n  "z_unknown": {"a": [1, "}"]}, "n": 1.0, "s": "\\u00e9\\"" }');
  expect(spliceTopLevel(text, { model: undefined })).toBe('{ "z_unknown": {"a": [1, "}"]}, "n": 1.0, "s": "\\u00e9\\"" }');
  expect(spliceTopLevel(text, { n: undefined, extra: 'true' })).toBe('{ "model" : "route",\n  "z_unknown": {"a": [1, "}"]}, "s": "\\u00e9\\"" ,"extra":true}');
  expect(spliceTopLevel('{}', { a: '1' })).toBe('{"a":1}');
  expect(spliceTopLevel('{"a":1}', { a: undefined, b: '2' })).toBe('{"b":2}');
});

const member = fc.tuple(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }));

it('gives the object the edits describe, for any object and any edits', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(member, { selector: ([key]) => key, maxLength: 8 }),
      fc.dictionary(fc.string({ maxLength: 6 }), fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }), { maxKeys: 5 }),
      fc.boolean(),
      (members, edits, pretty) => {
        const object = Object.fromEntries(members);
        const text = JSON.stringify(object, null, pretty ? 2 : undefined);
        const textEdits = Object.fromEntries(Object.entries(edits).map(([key, value]) => [key, value === undefined ? undefined : JSON.stringify(value)]));
        const expected: Record<string, unknown> = JSON.parse(text) as Record<string, unknown>;
        for (const [key, value] of Object.entries(edits)) {
          if (value === undefined) delete expected[key];
          else expected[key] = JSON.parse(JSON.stringify(value));
        }
        const spliced = spliceTopLevel(text, textEdits);
        expect(JSON.parse(spliced)).toEqual(expected);
        // Unedited members keep their order.
        const kept = Object.keys(JSON.parse(text) as object).filter((key) => !(key in edits));
        expect(Object.keys(JSON.parse(spliced) as object).filter((key) => !(key in edits))).toEqual(kept);
      },
    ),
    { numRuns: 500 },
  );
});

it('hands an edit function the member value as written, or undefined when absent', () => {
  const withUsage = (present: string | undefined) => JSON.stringify({ ...(present === undefined ? {} : (JSON.parse(present) as object)), include_usage: true });
  expect(spliceTopLevel('{"stream_options": {"x":1}}', { stream_options: withUsage })).toBe('{"stream_options": {"x":1,"include_usage":true}}');
  expect(spliceTopLevel('{"a":1}', { stream_options: withUsage })).toBe('{"a":1,"stream_options":{"include_usage":true}}');
});
