import type {
  ChatRequest,
  ResponseFormat,
  TargetContext,
  ToolChoice,
  ToolDefinition,
  UpstreamRequest,
} from '../spec.js';
import type { JsonRecord } from '../shared/json-fields.js';
import { joinUrl } from '../shared/join-url.js';
import { fitCachePoints } from './cache-points.js';
import { hasToolBlocks, toBedrockConversation, toCachePoint } from './to-bedrock-messages.js';

/**
 * A Converse or ConverseStream request. The model id goes in the path, URL-encoded: Bedrock ids
 * and ARNs contain `:` and `/`. Credentials (SigV4) are added per attempt, after this.
 */
export function buildBedrockRequest(request: ChatRequest, target: TargetContext): UpstreamRequest {
  const claudeBlocks = takesClaudeBlocks(target.routedModel);
  const conversation = toBedrockConversation(request.messages, { claudeBlocks });
  const body: JsonRecord = { ...conversation };
  const inferenceConfig = toInferenceConfig(request);
  if (Object.keys(inferenceConfig).length > 0) body.inferenceConfig = inferenceConfig;
  const tools = request.tools ?? [];
  // Converse has no "none" tool choice: leaving the tools out says it, except that Converse
  // rejects a conversation holding tool blocks without a toolConfig, so there they stay declared.
  const toolsWithheld = request.toolChoice === 'none' && !hasToolBlocks(conversation);
  if (tools.length > 0 && !toolsWithheld) {
    const toolBlocks = tools.flatMap((tool) =>
      claudeBlocks && tool.cacheControl !== undefined ? [toToolSpec(tool), toCachePoint(tool.cacheControl)] : [toToolSpec(tool)],
    );
    body.toolConfig = { tools: toolBlocks, toolChoice: toBedrockToolChoice(request.toolChoice) };
  }
  const outputConfig = toOutputConfig(request.responseFormat);
  if (outputConfig !== undefined) body.outputConfig = outputConfig;
  // Claude on Bedrock takes Anthropic's beta flags in its own request fields, which Converse
  // forwards; other models would refuse the field.
  if (request.anthropicBetas !== undefined && CLAUDE_MODEL.test(target.routedModel)) {
    body.additionalModelRequestFields = { anthropic_beta: request.anthropicBetas };
  }
  if (claudeBlocks) fitCachePoints(body, target.routedModel);

  const operation = request.stream ? 'converse-stream' : 'converse';
  return {
    url: joinUrl(target.baseUrl, `/model/${encodeURIComponent(target.routedModel)}/${operation}`),
    method: 'POST',
    headers: request.stream
      ? { 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' }
      : { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

const CLAUDE_MODEL = /anthropic\.claude-/;
const CLAUDE_WITHOUT_PROMPT_CACHING = /anthropic\.claude-(v2|instant|3-(opus|sonnet|haiku)-|3-5-sonnet)/;

/**
 * Whether the model takes cache points and Claude's reasoning blocks: Claude from 3.5 Haiku and
 * 3.7 Sonnet on, named in the model id, inference profile or ARN. Bedrock refuses a cache point
 * for a model without prompt caching (with a 403; an attempt wasted on every request), and
 * only Claude can check Claude's reasoning signatures. An id that does not name the model (an
 * application inference profile) gets neither.
 */
function takesClaudeBlocks(modelId: string): boolean {
  return CLAUDE_MODEL.test(modelId) && !CLAUDE_WITHOUT_PROMPT_CACHING.test(modelId);
}

function toInferenceConfig(request: ChatRequest): JsonRecord {
  const config: JsonRecord = {};
  if (request.maxOutputTokens !== undefined) config.maxTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) config.stopSequences = request.stop;
  return config;
}

/**
 * `strict` is not forwarded: only some Bedrock models support strict tool use, and OpenAI
 * clients often set it by default, which would make every request to the others fail.
 */
function toToolSpec(tool: ToolDefinition): JsonRecord {
  return {
    toolSpec: {
      name: tool.name,
      description: tool.description,
      inputSchema: { json: tool.parameters ?? { type: 'object', properties: {} } },
    },
  };
}

/** `undefined` (and `none`, when the tools must stay declared) leave Converse's default, `auto`. */
function toBedrockToolChoice(choice: ToolChoice | undefined): JsonRecord | undefined {
  if (choice === undefined || choice === 'none') return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  return { tool: { name: choice.name } };
}

/**
 * A JSON schema becomes Converse structured output (`outputConfig.textFormat`, whose schema is
 * JSON text); models without it answer 400, which fails over. `json_object` has no Converse
 * equivalent and is left to the prompt, which OpenAI already requires to ask for JSON.
 */
function toOutputConfig(format: ResponseFormat | undefined): JsonRecord | undefined {
  if (format?.type !== 'json_schema' || format.schema === undefined) return undefined;
  return {
    textFormat: {
      type: 'json_schema',
      structure: {
        jsonSchema: { schema: JSON.stringify(format.schema), name: format.name, description: format.description },
      },
    },
  };
}
