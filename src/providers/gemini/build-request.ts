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
import { toGeminiConversation } from './to-gemini-contents.js';

/** `gemini-3-pro-preview`, `models/gemini-3-flash`: the generation is the number after `gemini-`. */
const GEMINI_GENERATION = /(?:^|\/)gemini-(\d+)/;

/**
 * The credential (`x-goog-api-key`) is added per attempt by the gateway, never in the URL. The
 * model goes into the path encoded, since a model name may carry characters that mean something
 * there (the mock provider reads directives from `?…` in the name).
 */
export function buildGeminiRequest(request: ChatRequest, target: TargetContext): UpstreamRequest {
  const { systemInstruction, contents } = toGeminiConversation(request.messages, {
    requiresThoughtSignatures: requiresThoughtSignatures(target.routedModel),
  });
  const body: JsonRecord = { systemInstruction, contents };
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = [{ functionDeclarations: request.tools.map(toFunctionDeclaration) }];
    if (request.toolChoice !== undefined) {
      body.toolConfig = { functionCallingConfig: toFunctionCallingConfig(request.toolChoice) };
    }
  }
  const generationConfig = toGenerationConfig(request);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;

  // The API names models `models/…`; a name configured that way must not be encoded twice.
  const model = encodeURIComponent(target.routedModel.replace(/^models\//, ''));
  const method = request.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return {
    url: joinUrl(target.baseUrl, `/models/${model}:${method}`),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

function requiresThoughtSignatures(model: string): boolean {
  const generation = GEMINI_GENERATION.exec(model)?.[1];
  return generation !== undefined && Number(generation) >= 3;
}

/**
 * Tool schemas go as `parametersJsonSchema`, which takes JSON Schema as clients write it.
 * `parameters` takes an OpenAPI subset that rejects common JSON Schema keywords
 * (`additionalProperties`, `$schema`), which OpenAI clients send with every strict tool.
 */
function toFunctionDeclaration(tool: ToolDefinition): JsonRecord {
  return { name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters };
}

function toFunctionCallingConfig(choice: ToolChoice): JsonRecord {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

function toGenerationConfig(request: ChatRequest): JsonRecord {
  const config: JsonRecord = {};
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) config.stopSequences = request.stop;
  if (request.responseFormat !== undefined) Object.assign(config, toResponseFormatConfig(request.responseFormat));
  return config;
}

/** `responseJsonSchema` takes JSON Schema as it is (unlike `responseSchema`, an OpenAPI subset). */
function toResponseFormatConfig(format: ResponseFormat): JsonRecord {
  if (format.type === 'text') return {};
  if (format.type === 'json_object' || format.schema === undefined) return { responseMimeType: 'application/json' };
  return { responseMimeType: 'application/json', responseJsonSchema: format.schema };
}
