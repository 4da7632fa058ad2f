import type { CallerDialect } from '../caller-dialect.js';
import { OPENAI_CHAT } from '../openai-chat/openai-chat.js';
import { parseOpenAiResponses } from './parse-openai-responses.js';
import { renderOpenAiResponse } from './render-openai-response.js';
import type { ResponsesEcho } from './responses-echo.js';
import { responseIdOf } from './response-object.js';
import { spliceTopLevel } from '../../providers/shared/splice-json.js';
import { ResponsesStreamWriter } from './responses-stream-writer.js';

/** OpenAI Responses, as the caller speaks it: one request's translation (stored answers and `previous_response_id` are conversations/'s, joined in serving/responses-endpoint.ts). */
export const OPENAI_RESPONSES: CallerDialect = {
  endpoint: 'POST /v1/responses',
  operation: 'responses',
  relaysTo: 'openai-responses',
  requestIdHeaders: ['x-request-id'],
  parse: parseOpenAiResponses,
  renderResult: (result, fallbackId, echo) => renderOpenAiResponse(result, fallbackId, echo as ResponsesEcho),
  // The provider's answer under the gateway's id (`responseIdOf`), the rest as it came.
  relayedResult: (text, fallbackId) => spliceTopLevel(text, { id: JSON.stringify(responseIdOf(fallbackId)) }),
  streamRenderer: (options) => new ResponsesStreamWriter({ requestId: options.fallbackId, model: options.model, echo: options.echo as ResponsesEcho }),
  // The Responses API spells its errors as Chat Completions does.
  errorBody: OPENAI_CHAT.errorBody,
};
