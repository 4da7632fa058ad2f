import type { CallerDialect } from '../caller-dialect.js';
import { OpenAiStreamWriter } from './openai-stream-writer.js';
import { parseOpenAiChat } from './parse-openai-chat.js';
import { renderOpenAiChat } from './render-openai-chat.js';

/** OpenAI Chat Completions, as the caller speaks it. */
export const OPENAI_CHAT: CallerDialect = {
  endpoint: 'POST /v1/chat/completions',
  relaysTo: 'openai',
  requestIdHeaders: ['x-request-id'],
  parse: parseOpenAiChat,
  renderResult: (result, fallbackId) => renderOpenAiChat(result, `chatcmpl-${fallbackId}`),
  streamRenderer: (options) =>
    new OpenAiStreamWriter({ model: options.model, includeUsage: options.includeUsage, fallbackId: `chatcmpl-${options.fallbackId}` }),
  errorBody: (error) => ({
    error: {
      message: error.message,
      type: error.type,
      param: error.param ?? null,
      code: error.code,
      request_id: error.requestId,
      ...(error.attempts ? { attempts: error.attempts } : {}),
    },
  }),
};
