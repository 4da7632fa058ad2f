import { z } from 'zod';
import { cacheControlSchema } from '../shared/cache-control.js';
import { modelNameSchema } from '../shared/model-name.js';

/**
 * The Anthropic Messages request body as the gateway accepts it. Unknown top-level fields pass
 * through (for Anthropic targets); unknown keys inside blocks (`citations`, `caller`) are
 * dropped, since the canonical model has nowhere to keep them. Block types the canonical model
 * cannot express (documents, server tools, …) are rejected rather than dropped.
 */
const cacheControl = cacheControlSchema.nullish();

const textBlock = z.object({ type: z.literal('text'), text: z.string(), cache_control: cacheControl });

const imageSource = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
  z.object({ type: z.literal('url'), url: z.string().min(1) }),
]);
const imageBlock = z.object({ type: z.literal('image'), source: imageSource, cache_control: cacheControl });

const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(textBlock)]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControl,
});

const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControl,
});

// Earlier turns' reasoning, which clients such as Claude Code send back as they received it. A
// signature is required by Anthropic, not here: an unsigned block is simply never sent to it.
const thinkingBlock = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() });
const redactedThinkingBlock = z.object({ type: z.literal('redacted_thinking'), data: z.string() });

const userBlock = z.discriminatedUnion('type', [textBlock, imageBlock, toolResultBlock]);
const assistantBlock = z.discriminatedUnion('type', [textBlock, toolUseBlock, thinkingBlock, redactedThinkingBlock]);

// Claude Code puts `system` entries among the turns (instructions that arrive mid-conversation).
const message = z.discriminatedUnion('role', [
  z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(userBlock)]) }),
  z.object({ role: z.literal('assistant'), content: z.union([z.string(), z.array(assistantBlock)]) }),
  z.looseObject({
    role: z.literal('system'),
    content: z.union([z.string(), z.array(textBlock)]).optional(),
    clear_at: z.enum(['next_user_message', 'never']).nullish(),
    output_config: z.looseObject({}).nullish(),
  }),
]);

const tool = z.object({
  // Custom tools may say so; server tools (`web_search_…`, `bash_…`) have other types and no schema.
  type: z.literal('custom').optional(),
  name: z.string().min(1).max(128),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
  cache_control: cacheControl,
});

const parallelism = { disable_parallel_tool_use: z.boolean().optional() };
const toolChoice = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto'), ...parallelism }),
  z.object({ type: z.literal('any'), ...parallelism }),
  z.object({ type: z.literal('tool'), name: z.string().min(1), ...parallelism }),
  z.object({ type: z.literal('none') }),
]);

export const anthropicMessagesBodySchema = z.looseObject({
  model: modelNameSchema,
  // Required by Anthropic, so required here: a caller relying on a default would be surprised.
  max_tokens: z.number().int().positive(),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  messages: z.array(message).min(1),
  tools: z.array(tool).optional(),
  tool_choice: toolChoice.optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  stream: z.boolean().optional(),
  metadata: z.object({ user_id: z.string().nullish() }).optional(),
  // Both also pass through as sent to Anthropic targets; they are read here for the others.
  thinking: z.looseObject({ type: z.string().min(1) }).nullish(),
  output_config: z
    .looseObject({
      format: z.looseObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish(),
    })
    .nullish(),
});

export type AnthropicMessagesBody = z.infer<typeof anthropicMessagesBodySchema>;

/** Fields mapped onto the canonical request; everything else is passthrough for Anthropic targets. */
export const MODELED_FIELDS = new Set([
  'model', 'max_tokens', 'system', 'messages', 'tools', 'tool_choice', 'stop_sequences',
  'temperature', 'top_p', 'stream', 'metadata',
]);
