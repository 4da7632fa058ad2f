/**
 * Whether the mock answers with a tool call, to which tool, and with what arguments — so an agent
 * loop run against the mock behaves as against a model: a forced tool is called with arguments
 * its schema accepts on every turn, as a provider obeys a forced choice, and otherwise the turn
 * after a tool's result is text, so the loop ends.
 */
import type { UpstreamDialect } from '../providers/spec.js';
import { isRecord } from './answer.js';
import { requestedTools, type ToolChoice } from './requested-tools.js';
import { SchemaProblem, schemaValue } from './schema-value.js';

export interface MockToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** A tool choice no provider would serve (a forced tool that is not declared): the mock answers it as a 400. */
export class ToolChoiceProblem extends Error {}

/** The arguments of a call to a tool the request does not declare (only `tool_call=NAME` can ask for one). */
export const undeclaredToolInput: Readonly<Record<string, string>> = Object.freeze({ city: 'Paris', unit: 'celsius' });

/**
 * In order: a `none` choice is answered with text; a turn ending in a tool's result is answered
 * with a forced choice's tool, or else text; any other turn calls the `tool_call=NAME`
 * directive's tool, else a forced choice's tool (the named one, the first allowed one, or the
 * first declared one for `required` / `any`); else (`auto`, no tools) the answer is text.
 */
export function mockToolCall(dialect: UpstreamDialect, body: Record<string, unknown>, directiveTool: string | undefined): MockToolCall | undefined {
  const request = requestedTools(dialect, body);
  const forced = forcedTool(request.choice, request.tools, request.choiceField);
  if (request.choice.kind === 'none') return undefined;
  // The directive stands for a model's own choice, which a tool's result ends; a forced choice binds every turn.
  const name = request.endsWithToolResult ? forced : (directiveTool ?? forced);
  if (name === undefined) return undefined;
  if (!request.tools.has(name)) return { name, input: { ...undeclaredToolInput } };
  return { name, input: argumentsFor(name, request.tools.get(name)) };
}

/** Checked on every turn, as providers check it, even where the answer will be text. */
function forcedTool(choice: ToolChoice, tools: Map<string, unknown>, field: string): string | undefined {
  if (choice.kind !== 'forced') return undefined;
  if (choice.among === undefined) {
    const [first] = tools.keys();
    if (first === undefined) throw new ToolChoiceProblem(`${field} forces a tool call, but the request declares no tools`);
    return first;
  }
  const allowed = choice.among.find((name) => tools.has(name));
  if (allowed === undefined) throw new ToolChoiceProblem(`${field} names ${choice.among.map((name) => `"${name}"`).join(', ')}, which the request's tools do not declare`);
  return allowed;
}

/** A value of the tool's schema; a tool declared without one takes no arguments. */
function argumentsFor(name: string, schema: unknown): Record<string, unknown> {
  if (schema === undefined) return {};
  let value: unknown;
  try {
    value = schemaValue(schema);
  } catch (error) {
    if (error instanceof SchemaProblem) throw new SchemaProblem(`tool "${name}": ${error.message}`);
    throw error;
  }
  if (!isRecord(value)) throw new SchemaProblem(`tool "${name}": its schema does not describe a JSON object`);
  return value;
}
