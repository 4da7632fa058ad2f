import { z } from 'zod';
import { modelNameSchema } from '../shared/model-name.js';

/**
 * The OpenAI Chat Completions request body as the gateway accepts it (unknown fields pass through).
 * Content parts may carry Anthropic's `cache_control`, as clients that reach Claude through
 * OpenAI-wire gateways send it: kept for targets that cache on markers; one the gateway cannot
 * read is left out rather than refused, since OpenAI itself has no such field.
 */
const cacheControl = z.unknown().optional();
const textPart = z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControl });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
  cache_control: cacheControl,
});
const userPart = z.discriminatedUnion('type', [textPart, imagePart]);
const textContent = z.union([z.string(), z.array(textPart)]);

const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: textContent, name: z.string().optional() }),
  z.object({ role: z.literal('developer'), content: textContent, name: z.string().optional() }),
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(userPart)]), name: z.string().optional() }),
  z.object({
    role: z.literal('assistant'),
    content: textContent.nullish(),
    tool_calls: z.array(toolCall).optional(),
    refusal: z.string().nullish(),
    name: z.string().optional(),
  }),
  z.object({ role: z.literal('tool'), content: textContent, tool_call_id: z.string().min(1) }),
]);

const tool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().min(1).max(64),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().min(1),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

export const openAiChatBodySchema = z.looseObject({
  model: modelNameSchema,
  messages: z.array(message).min(1),
  tools: z.array(tool).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullish(),
  response_format: responseFormat.optional(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  user: z.string().optional(),
  prompt_cache_key: z.string().min(1).nullish(),
  n: z.literal(1, { error: 'only n = 1 is supported: the gateway fails over one answer at a time' }).nullish(),
});

export type OpenAiChatBody = z.infer<typeof openAiChatBodySchema>;

/** Fields mapped onto the canonical request; everything else is passthrough for OpenAI targets. */
export const MODELED_FIELDS = new Set([
  'model', 'messages', 'tools', 'tool_choice', 'parallel_tool_calls', 'max_tokens', 'max_completion_tokens',
  'temperature', 'top_p', 'stop', 'response_format', 'stream', 'stream_options', 'user', 'prompt_cache_key', 'n',
]);
