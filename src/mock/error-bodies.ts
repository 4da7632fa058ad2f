/**
 * Error bodies the mock answers with, copied from the captured provider responses under
 * `test/contract/{openai,anthropic}/__fixtures__/errors/` (test/ is not shipped, so the JSON lives
 * here). Only the 404 bodies are templated, so the message names the model that was asked for.
 */

export const openaiErrorBodies = {
  invalidRequest: {
    error: {
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      type: 'invalid_request_error',
      param: 'max_tokens',
      code: 'unsupported_parameter',
    },
  },
  invalidApiKey: {
    error: {
      message:
        'Incorrect API key provided: sk-VKMIs***************************************wjh3. You can find your API key at https://platform.openai.com/account/api-keys.',
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_api_key',
    },
  },
  unsupportedCountry: {
    error: {
      code: 'unsupported_country_region_territory',
      message: 'Country, region, or territory not supported',
      param: null,
      type: 'request_forbidden',
    },
  },
  rateLimitExceeded: {
    error: {
      message:
        'Rate limit reached for o4-mini in organization org-**** on tokens per min (TPM): Limit 200000, Used 162960, Requested 42288. Please try again in 1.574s. Visit https://platform.openai.com/account/rate-limits to learn more.',
      type: 'tokens',
      param: null,
      code: 'rate_limit_exceeded',
    },
  },
  insufficientQuota: {
    error: {
      message:
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
      type: 'insufficient_quota',
      param: null,
      code: 'insufficient_quota',
    },
  },
  contextLengthExceeded: {
    error: {
      message:
        "This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  },
  invalidPromptSafety: {
    error: {
      message:
        'Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt: https://platform.openai.com/docs/guides/reasoning#advice-on-prompting',
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_prompt',
    },
  },
  serverError: {
    error: {
      message:
        'The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error. (Please include the request ID req_540c6eaab7f4556b2baa22bcba915d51 in your email.)',
      type: 'server_error',
      param: null,
      code: null,
    },
  },
  modelOverloaded: {
    error: {
      message:
        'That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists. (Please include the request ID 500d9fff2057e4af93a280f67002c342 in your message.)',
      type: 'server_error',
      param: null,
      code: null,
    },
  },
} as const;

export function openaiModelNotFoundBody(model: string): object {
  return {
    error: {
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      type: 'invalid_request_error',
      param: null,
      code: 'model_not_found',
    },
  };
}

/** The in-band error objects of a 200 stream (`data: {"error":…}`); real ones carry no code. */
export const openaiInbandErrors = {
  server_error: {
    error: {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      param: null,
      code: null,
    },
  },
  overloaded: {
    error: {
      message: openaiErrorBodies.modelOverloaded.error.message,
      type: 'server_error',
      param: null,
      code: null,
    },
  },
} as const;

export const anthropicErrorBodies = {
  invalidRequest: {
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message:
        'messages.0.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01GHndag5wQmbzNihYmV2UBj. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    },
    request_id: 'req_011CYHyk9NPsBYeGbC9LuDNK',
  },
  authentication: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
  permission: {
    type: 'error',
    error: { type: 'permission_error', message: 'Permission denied' },
    request_id: 'req_011CaH53rCYtDAVnwhLQvkuc',
  },
  rateLimit: {
    type: 'error',
    error: {
      type: 'rate_limit_error',
      message:
        "This request would exceed your organization's rate limit of 20,000,000 prompt bytes per hour (org: 5576611f-a1ee-427c-9800-298d9579899c, model: claude-sonnet-4-5-20250929). For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.",
    },
    request_id: 'req_011CYK5n67SytMUxm8WMZUWY',
  },
  spendCapEnforced: {
    type: 'error',
    error: {
      type: 'rate_limit_error',
      message:
        "You have reached your API usage limits: your organization has crossed its monthly API usage threshold, set based on your organization's API tier. You will regain access on 2026-09-01 at 00:00 UTC.",
      details: { error_code: 'enforced_spend_limit_reached' },
    },
    request_id: 'req_018EeWyXxfu5pfWkrYcMdjWG',
  },
  userSpendLimit: {
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message:
        'You have reached your specified workspace API usage limits. You will regain access on 2026-09-01 at 00:00 UTC.',
    },
  },
  promptTooLong: {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'prompt is too long: 205351 tokens > 200000 maximum' },
    request_id: 'req_011CV5J4YZo4J3KLTDZgDN7S',
  },
  /** Anthropic has no prompt-moderation error status; this is the message its filter answers with. */
  contentFiltered: {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'Output blocked by content filtering policy' },
  },
  apiError: {
    type: 'error',
    error: { type: 'api_error', message: 'Internal server error' },
    request_id: 'req_011CZ9DnGcb9TsSUXqRaTW8a',
  },
  overloaded: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
} as const;

export function anthropicNotFoundBody(model: string): object {
  return { type: 'error', error: { type: 'not_found_error', message: `model: ${model}` } };
}

/** The payloads of an in-band `event: error` (the HTTP status was already 200). */
export const anthropicInbandErrors = {
  overloaded: anthropicErrorBodies.overloaded,
  server_error: { type: 'error', error: { type: 'api_error', message: 'Internal server error' } },
} as const;
