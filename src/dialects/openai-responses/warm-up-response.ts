import type { OpenAiResponsesBody } from './openai-responses-schema.js';
import { echoOf } from './parse-openai-responses.js';
import { responseObject } from './response-object.js';

/**
 * The answer to a `response.create` with `generate: false` — a client preparing its WebSocket
 * (Codex sends one first, with no input) — as the two events that carry it: a response created
 * and completed with no output and no usage, its settings echoed, so the next turn may name it.
 */
export function warmUpEvents(create: Record<string, unknown>, responseId: string): Record<string, unknown>[] {
  const echo = echoOf(create as OpenAiResponsesBody);
  const state = { id: responseId, createdAt: Math.floor(Date.now() / 1000), model: typeof create.model === 'string' ? create.model : '', output: [] };
  return [
    { type: 'response.created', sequence_number: 0, response: responseObject({ ...state, status: 'in_progress' }, echo) },
    { type: 'response.completed', sequence_number: 1, response: responseObject({ ...state, status: 'completed', usage: { inputTokens: 0, outputTokens: 0 } }, echo) },
  ];
}
