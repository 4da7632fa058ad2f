import { z } from 'zod';
import { modelNameSchema } from '../shared/model-name.js';

/**
 * The OpenAI Responses request body as the gateway accepts it. Unknown fields pass the schema
 * (they are dropped for translated targets), and so do tool and input item types it does not
 * model: clients such as Codex send many, and a translated target simply goes without them.
 */
const inputText = z.object({ type: z.literal('input_text'), text: z.string() });
const outputText = z.looseObject({ type: z.literal('output_text'), text: z.string() });
const refusal = z.object({ type: z.literal('refusal'), refusal: z.string() });
const inputImage = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().min(1, 'only images given by URL (http(s) or data:) are supported'),
  detail: z.enum(['auto', 'low', 'high']).nullish(),
});
const contentPart = z.discriminatedUnion('type', [inputText, outputText, refusal, inputImage]);

const messageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPart)]),
});

const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  namespace: z.string().min(1).nullish(),
  arguments: z.string(),
});

const functionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(z.discriminatedUnion('type', [inputText, inputImage]))]),
});

const reasoningItem = z.looseObject({
  type: z.literal('reasoning'),
  summary: z.array(z.looseObject({ type: z.string(), text: z.string() })).optional(),
  encrypted_content: z.string().nullish(),
});

/**
 * A type the gateway does not model, checked for that alone. A known type never falls through to
 * it, so a malformed message or call is a 400 rather than silently dropped.
 */
function otherType(known: readonly string[]) {
  return z.looseObject({
    type: z
      .string()
      .min(1)
      .max(64)
      .refine((type) => !known.includes(type), 'malformed item of this type'),
  });
}

/** Any other typed item (`item_reference`, hosted tool calls, …). */
const otherItem = otherType(['message', 'function_call', 'function_call_output', 'reasoning']);

const inputItem = z.union([messageItem, functionCallItem, functionCallOutputItem, reasoningItem, otherItem]);

const functionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1).max(64),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const namespaceTool = z.looseObject({
  type: z.literal('namespace'),
  name: z.string().min(1).max(64),
  description: z.string().nullish(),
  // Custom (free-form) tools inside a namespace have no translated form; they are dropped too.
  tools: z.array(z.union([functionTool, otherType(['function'])])),
});

/** Hosted and other tool types: a translated target cannot run them, so they are dropped. */
const otherTool = otherType(['function', 'namespace']);

const tool = z.union([functionTool, namespaceTool, otherTool]);

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.looseObject({ type: z.literal('function'), name: z.string().min(1) }),
  // Forcing a hosted tool (or an `allowed_tools` set): none of that survives translation.
  otherType(['function']),
]);

const textFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().min(1),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

export const openAiResponsesBodySchema = z.looseObject({
  model: modelNameSchema,
  input: z.union([z.string(), z.array(inputItem).min(1)]),
  instructions: z.string().nullish(),
  tools: z.array(tool).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.looseObject({ format: textFormat.optional() }).nullish(),
  reasoning: z
    .looseObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  metadata: z.record(z.string().max(64), z.string().max(512)).nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  include: z.array(z.string()).nullish(),
  previous_response_id: z.string().nullish(),
  user: z.string().nullish(),
  prompt_cache_key: z.string().min(1).nullish(),
});

export type OpenAiResponsesBody = z.infer<typeof openAiResponsesBodySchema>;
export type ResponsesInputItem = z.infer<typeof inputItem>;
export type ResponsesTool = z.infer<typeof tool>;
export type ResponsesFunctionTool = z.infer<typeof functionTool>;
export type ResponsesNamespaceTool = z.infer<typeof namespaceTool>;
