import type { UpstreamDialect } from '../providers/spec.js';
import { asRecord as record, isRecord } from './answer.js';

/**
 * What a request says about tools, read from each wire format's own fields: the function tools it
 * declares, what its tool choice asks for, and whether its last turn returns a tool's result.
 */
export interface RequestedTools {
  /** Declared function tools by name, in request order, with their argument schemas (undefined when none is given). */
  tools: Map<string, unknown>;
  choice: ToolChoice;
  /** The request field that holds the choice, for messages about it. */
  choiceField: string;
  endsWithToolResult: boolean;
}

/** `forced` with `among`: one of those tools (a named tool is a list of one); without: any declared tool. */
export type ToolChoice = { kind: 'auto' } | { kind: 'none' } | { kind: 'forced'; among?: string[] };

const auto: ToolChoice = { kind: 'auto' };

export function requestedTools(dialect: UpstreamDialect, body: Record<string, unknown>): RequestedTools {
  switch (dialect) {
    case 'openai': {
      const tools = declared(body.tools, (tool) => {
        const fn = record(tool.function);
        return tool.type === 'function' && fn ? [fn.name, fn.parameters] : undefined;
      });
      const choice = body.tool_choice;
      const named = record(record(choice)?.function)?.name;
      return {
        tools,
        choice: typeof named === 'string' ? { kind: 'forced', among: [named] } : openaiChoice(choice),
        choiceField: 'tool_choice',
        endsWithToolResult: record(lastOf(body.messages))?.role === 'tool',
      };
    }
    case 'openai-responses': {
      const tools = declared(body.tools, (tool) => (tool.type === 'function' ? [tool.name, tool.parameters] : undefined));
      const choice = record(body.tool_choice);
      return {
        tools,
        choice: choice?.type === 'function' && typeof choice.name === 'string' ? { kind: 'forced', among: [choice.name] } : openaiChoice(body.tool_choice),
        choiceField: 'tool_choice',
        endsWithToolResult: record(lastOf(body.input))?.type === 'function_call_output',
      };
    }
    case 'anthropic': {
      // Server tools (web search, code execution) have a `type` and no input schema; only client tools are called.
      const tools = declared(body.tools, (tool) => (tool.input_schema === undefined ? undefined : [tool.name, tool.input_schema]));
      return {
        tools,
        choice: anthropicChoice(record(body.tool_choice)),
        choiceField: 'tool_choice',
        endsWithToolResult: hasPart(record(lastOf(body.messages))?.content, (part) => part.type === 'tool_result'),
      };
    }
    case 'gemini': {
      // Gemini's REST API takes snake_case field names too.
      const declarations = Array.isArray(body.tools)
        ? body.tools.flatMap((tool) => (isRecord(tool) ? list(tool.functionDeclarations ?? tool.function_declarations) : []))
        : [];
      const tools = declared(declarations, (fn) => [fn.name, fn.parametersJsonSchema ?? fn.parameters_json_schema ?? fn.parameters]);
      const toolConfig = record(body.toolConfig ?? body.tool_config);
      const config = record(toolConfig?.functionCallingConfig ?? toolConfig?.function_calling_config);
      return {
        tools,
        choice: geminiChoice(config),
        choiceField: 'toolConfig.functionCallingConfig',
        endsWithToolResult: hasPart(record(lastOf(body.contents))?.parts, (part) => isRecord(part.functionResponse ?? part.function_response)),
      };
    }
    case 'bedrock': {
      const config = record(body.toolConfig);
      // The list also holds `cachePoint` entries, which are no tools.
      const tools = declared(config?.tools, (tool) => {
        const spec = record(tool.toolSpec);
        return spec ? [spec.name, record(spec.inputSchema)?.json] : undefined;
      });
      return {
        tools,
        choice: bedrockChoice(record(config?.toolChoice)),
        choiceField: 'toolConfig.toolChoice',
        endsWithToolResult: hasPart(record(lastOf(body.messages))?.content, (part) => isRecord(part.toolResult)),
      };
    }
  }
}

/** Chat Completions' and Responses' string choices (`allowed_tools` and hosted-tool choices are left to `auto`). */
function openaiChoice(choice: unknown): ToolChoice {
  if (choice === 'none') return { kind: 'none' };
  if (choice === 'required') return { kind: 'forced' };
  return auto;
}

function anthropicChoice(choice: Record<string, unknown> | undefined): ToolChoice {
  if (choice?.type === 'none') return { kind: 'none' };
  if (choice?.type === 'any') return { kind: 'forced' };
  if (choice?.type === 'tool' && typeof choice.name === 'string') return { kind: 'forced', among: [choice.name] };
  return auto;
}

function geminiChoice(config: Record<string, unknown> | undefined): ToolChoice {
  if (config?.mode === 'NONE') return { kind: 'none' };
  if (config?.mode !== 'ANY') return auto;
  const allowed = list(config.allowedFunctionNames ?? config.allowed_function_names).filter((name): name is string => typeof name === 'string');
  return allowed.length > 0 ? { kind: 'forced', among: allowed } : { kind: 'forced' };
}

/** Converse has no `none`: a caller that wants no call sends no tools. */
function bedrockChoice(choice: Record<string, unknown> | undefined): ToolChoice {
  if (isRecord(choice?.any)) return { kind: 'forced' };
  const name = record(choice?.tool)?.name;
  return typeof name === 'string' ? { kind: 'forced', among: [name] } : auto;
}

/** The tools `describe` recognises (returning their name and schema), by name, in order. */
function declared(tools: unknown, describe: (tool: Record<string, unknown>) => [unknown, unknown] | undefined): Map<string, unknown> {
  const byName = new Map<string, unknown>();
  for (const tool of list(tools)) {
    const described = isRecord(tool) ? describe(tool) : undefined;
    if (described && typeof described[0] === 'string' && !byName.has(described[0])) byName.set(described[0], described[1]);
  }
  return byName;
}

function hasPart(parts: unknown, test: (part: Record<string, unknown>) => boolean): boolean {
  return list(parts).some((part) => isRecord(part) && test(part));
}

function lastOf(turns: unknown): unknown {
  return Array.isArray(turns) ? turns.at(-1) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
