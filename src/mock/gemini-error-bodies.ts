/**
 * google.rpc error bodies the mock's Gemini answers with, copied from the captures under
 * `test/contract/gemini/__fixtures__/errors/` (test/ is not shipped, so the JSON lives here).
 * Bodies marked reconstructed follow Google's standard wording where no capture exists.
 */

/** A google.rpc error; `code` repeats the HTTP status. */
export interface GeminiErrorBody {
  error: { code: number; message: string; status: string; details?: readonly object[] };
}

const rateLimitsHelp = {
  '@type': 'type.googleapis.com/google.rpc.Help',
  links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
};

export const geminiErrorBodies = {
  apiKeyInvalid: {
    error: {
      code: 400,
      message: 'API key not valid. Please pass a valid API key.',
      status: 'INVALID_ARGUMENT',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
        {
          '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
          locale: 'en-US',
          message: 'API key not valid. Please pass a valid API key.',
        },
      ],
    },
  },
  invalidArgument: {
    error: {
      code: 400,
      message:
        '* GenerateContentRequest.safety_settings[4]: element predicate failed: $.category in (HarmCategory.HARM_CATEGORY_HATE_SPEECH, HarmCategory.HARM_CATEGORY_SEXUALLY_EXPLICIT, HarmCategory.HARM_CATEGORY_DANGEROUS_CONTENT, HarmCategory.HARM_CATEGORY_HARASSMENT, HarmCategory.HARM_CATEGORY_CIVIC_INTEGRITY)\n',
      status: 'INVALID_ARGUMENT',
    },
  },
  tokenLimit: {
    error: {
      code: 400,
      message: 'The input token count (132478) exceeds the maximum number of tokens allowed (131072).',
      status: 'INVALID_ARGUMENT',
    },
  },
  /** Reconstructed: Google's standard answer to a missing or invalid OAuth token. */
  unauthenticated: {
    error: {
      code: 401,
      message:
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      status: 'UNAUTHENTICATED',
    },
  },
  /** Reconstructed: Google's standard PERMISSION_DENIED wording. */
  permissionDenied: {
    error: { code: 403, message: 'The caller does not have permission', status: 'PERMISSION_DENIED' },
  },
  /** The capture without its trailing RetryInfo detail, which the mock adds only when asked (`retry_after`). */
  resourceExhausted: {
    error: {
      code: 429,
      message:
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_input_token_count',
              quotaId: 'GenerateContentInputTokensPerModelPerMinute-FreeTier',
              quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
              quotaValue: '250000',
            },
          ],
        },
        rateLimitsHelp,
      ],
    },
  },
  /** Reconstructed from the capture above: the same 429, but a per-day quota, which only the next day lifts. */
  dailyQuotaExhausted: {
    error: {
      code: 429,
      message:
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
              quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
              quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
              quotaValue: '250',
            },
          ],
        },
        rateLimitsHelp,
      ],
    },
  },
  internal: {
    error: {
      code: 500,
      message:
        'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
      status: 'INTERNAL',
    },
  },
  unavailable: {
    error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' },
  },
} as const satisfies Record<string, GeminiErrorBody>;

export function geminiNotFoundBody(model: string): GeminiErrorBody {
  return {
    error: {
      code: 404,
      message: `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
      status: 'NOT_FOUND',
    },
  };
}

/** Gemini has no content-policy error: a blocked prompt is a 200 with `promptFeedback` and no candidates. */
export const geminiPromptBlocked = {
  promptFeedback: {
    blockReason: 'SAFETY',
    safetyRatings: [
      { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'NEGLIGIBLE' },
      { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'LOW' },
      { category: 'HARM_CATEGORY_HARASSMENT', probability: 'MEDIUM' },
      { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'NEGLIGIBLE' },
    ],
  },
} as const;

/** What follows the last good chunk of a failing 200 stream: a bare error object, no `data:` (midstream-error-chunk.txt). */
export const geminiInbandErrors = {
  server_error: { error: { code: 500, message: 'Internal error', status: 'INTERNAL' } },
  overloaded: geminiErrorBodies.unavailable,
} as const satisfies Record<string, GeminiErrorBody>;
