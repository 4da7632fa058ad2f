/**
 * Edits a JSON object's top-level members in its text, leaving every other byte as it was: the
 * same-dialect relay (docs/architecture.md) sends the caller's body upstream with only the
 * gateway's edits, so unknown fields, key order, number spellings and escapes reach the provider
 * as the caller wrote them. The text must be one JSON object (the caller's body, already parsed).
 */

/**
 * Per member: new JSON text for its value (replaced in place, or appended), or `undefined` to
 * remove it; or a function from its present value's text (undefined when absent) to either.
 */
export type MemberEdit = string | undefined | ((present: string | undefined) => string | undefined);
export type MemberEdits = Readonly<Record<string, MemberEdit>>;

function applied(edit: MemberEdit, present: string | undefined): string | undefined {
  return typeof edit === 'function' ? edit(present) : edit;
}

export function spliceTopLevel(text: string, edits: MemberEdits): string {
  const members = topLevelMembers(text);
  const pending = new Map(Object.entries(edits));
  let out = '';
  let from = 0;
  // Members are rewritten in order; a removed one takes its separating comma with it.
  let kept = 0;
  for (const member of members) {
    if (!pending.has(member.key)) {
      kept++;
      continue;
    }
    const value = applied(pending.get(member.key), text.slice(member.valueStart, member.end));
    pending.delete(member.key);
    if (value === undefined) {
      out += text.slice(from, kept === 0 ? member.start : member.separatorStart);
      from = kept === 0 ? member.nextStart : member.end;
    } else {
      out += text.slice(from, member.valueStart) + value;
      from = member.end;
      kept++;
    }
  }
  const added = [...pending].flatMap(([key, edit]) => {
    const value = applied(edit, undefined);
    return value === undefined ? [] : [[key, value] as const];
  });
  if (added.length === 0) return out + text.slice(from);
  const close = text.lastIndexOf('}');
  const appended = added.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',');
  return out + text.slice(from, close) + (kept > 0 ? ',' : '') + appended + text.slice(close);
}

interface MemberSpan {
  key: string;
  /** Where the member's key starts. */
  start: number;
  /** Where the comma before it starts (its start, for the first member). */
  separatorStart: number;
  valueStart: number;
  /** Just past its value. */
  end: number;
  /** Where the next member's key starts (past the comma after this one); `end` for the last. */
  nextStart: number;
}

/** The top-level members of a JSON object's text, with where each key and value lie. */
function topLevelMembers(text: string): MemberSpan[] {
  const members: MemberSpan[] = [];
  let at = skipSpace(text, 0);
  if (text[at] !== '{') throw new Error('not a JSON object');
  at = skipSpace(text, at + 1);
  let separatorStart = at;
  while (text[at] !== '}') {
    const start = at;
    const keyEnd = stringEnd(text, at);
    const key = JSON.parse(text.slice(at, keyEnd)) as string;
    at = skipSpace(text, keyEnd);
    if (text[at] !== ':') throw new Error(`expected ':' at ${at}`);
    const valueStart = skipSpace(text, at + 1);
    const end = valueEnd(text, valueStart);
    at = skipSpace(text, end);
    const member: MemberSpan = { key, start, separatorStart, valueStart, end, nextStart: end };
    members.push(member);
    if (text[at] === ',') {
      separatorStart = at;
      at = skipSpace(text, at + 1);
      member.nextStart = at;
    } else if (text[at] !== '}') {
      throw new Error(`expected ',' or '}' at ${at}`);
    }
  }
  return members;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && (text[at] === ' ' || text[at] === '\n' || text[at] === '\r' || text[at] === '\t')) at++;
  return at;
}

// Scans jump to the next character that matters, so a long string is crossed at native speed;
// by `test`, which makes no match array: the character found is the one before `lastIndex`.
const QUOTE_OR_ESCAPE = /["\\]/g;
const STRUCTURAL = /["{}[\]]/g;

/** Just past the string that starts at `at` (its opening quote). */
function stringEnd(text: string, at: number): number {
  if (text[at] !== '"') throw new Error(`expected a string at ${at}`);
  QUOTE_OR_ESCAPE.lastIndex = at + 1;
  while (QUOTE_OR_ESCAPE.test(text)) {
    const found = QUOTE_OR_ESCAPE.lastIndex - 1;
    if (text[found] === '"') return found + 1;
    QUOTE_OR_ESCAPE.lastIndex = found + 2;
  }
  throw new Error('unterminated string');
}

/** Just past the value that starts at `at`: a string, a nested object or array, or a literal. */
function valueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first === '{' || first === '[') {
    let depth = 0;
    STRUCTURAL.lastIndex = at;
    while (STRUCTURAL.test(text)) {
      const found = STRUCTURAL.lastIndex - 1;
      const char = text[found];
      if (char === '"') STRUCTURAL.lastIndex = stringEnd(text, found);
      else if (char === '{' || char === '[') depth++;
      else if (--depth === 0) return found + 1;
    }
    throw new Error('unterminated value');
  }
  let index = at;
  while (index < text.length && !',}] \n\r\t'.includes(text[index]!)) index++;
  return index;
}
