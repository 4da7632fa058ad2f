/**
 * Vertex AI's errors. The platform (sign-in, quota, routing) answers in google.rpc form for both
 * publishers; Claude's model layer answers in Anthropic's own form, its request id `req_vrtx_…`.
 * Sources are in test/contract/vertex/__fixtures__/README.md; bodies marked reconstructed follow Google's
 * standard wording where no capture was found.
 */
import type { GeminiErrorBody } from './gemini-error-bodies.js';
import type { VertexResource } from './routes.js';

const quotasHelp = 'https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai';
const signInHelp = 'https://developers.google.com/identity/sign-in/web/devconsole-project';

/** `projects/P/locations/L/publishers/X/models/M`, as Vertex names a model in its messages. */
export function vertexModelPath(resource: VertexResource, model: string): string {
  return `projects/${resource.project}/locations/${resource.location}/publishers/${resource.publisher}/models/${model}`;
}

/** Vertex's quotas are per base model (the name before `@`), Claude's prefixed `anthropic-`. */
function baseModel(resource: VertexResource, model: string): string {
  const name = model.split('@')[0]!;
  return resource.publisher === 'anthropic' ? `anthropic-${name}` : name;
}

function rpcMethod(resource: VertexResource): string {
  return `google.cloud.aiplatform.v1.PredictionService.${resource.method[0]!.toUpperCase()}${resource.method.slice(1)}`;
}

/** Verbatim form (claude-code#1440): a per-minute quota of one base model, in the request's region. No details. */
export function perMinuteQuota(resource: VertexResource, model: string): GeminiErrorBody {
  const metric =
    resource.publisher === 'anthropic'
      ? 'online_prediction_input_tokens_per_minute_per_base_model'
      : 'generate_content_requests_per_minute_per_project_per_base_model';
  const message = `Quota exceeded for aiplatform.googleapis.com/${metric} with base model: ${baseModel(resource, model)}. Please submit a quota increase request. ${quotasHelp}.`;
  return { error: { code: 429, message, status: 'RESOURCE_EXHAUSTED' } };
}

/**
 * Reconstructed: a per-day quota, which only the next day lifts. The message follows the per-minute
 * one; the ErrorInfo detail (its region in `quota_location`) is the one Google's quota system attaches
 * (captured for generativelanguage in google/generative-ai-docs#236).
 */
export function perDayQuota(resource: VertexResource, model: string): GeminiErrorBody {
  const metric = 'aiplatform.googleapis.com/generate_content_requests_per_day_per_project_per_base_model';
  return {
    error: {
      code: 429,
      message: `Quota exceeded for ${metric} with base model: ${baseModel(resource, model)}. Please submit a quota increase request. ${quotasHelp}.`,
      status: 'RESOURCE_EXHAUSTED',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMIT_EXCEEDED',
          domain: 'googleapis.com',
          metadata: {
            service: 'aiplatform.googleapis.com',
            quota_metric: metric,
            quota_limit: 'GenerateContentRequestsPerDayPerProjectPerBaseModel',
            quota_location: resource.location,
            quota_limit_value: '0',
            consumer: `projects/${resource.project}`,
          },
        },
        { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Request a higher quota limit.', url: 'https://cloud.google.com/docs/quota#requesting_higher_quota' }] },
      ],
    },
  };
}

/** Verbatim (gemini-cli#15498, js-genai#1364): Gemini's shared capacity is spent; no quota is named. */
export const sharedCapacityExhausted: GeminiErrorBody = {
  error: {
    code: 429,
    message:
      'Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.',
    status: 'RESOURCE_EXHAUSTED',
  },
};

/** Why a request's bearer is refused: none, one Google never issued, or an expired one. */
export type TokenProblem = 'missing' | 'unknown' | 'expired';

/** Reconstructed from Google's standard 401s (python-genai#426 shows the ErrorInfo's form on aiplatform). */
export function unauthenticated(resource: VertexResource, problem: TokenProblem): GeminiErrorBody {
  const message =
    problem === 'missing'
      ? `Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See ${signInHelp}.`
      : `Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See ${signInHelp}.`;
  const reasons: Record<TokenProblem, string> = {
    missing: 'CREDENTIALS_MISSING',
    unknown: 'ACCESS_TOKEN_TYPE_UNSUPPORTED',
    expired: 'ACCESS_TOKEN_EXPIRED',
  };
  const errorInfo = {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: reasons[problem],
    domain: 'googleapis.com',
    metadata: { method: rpcMethod(resource), service: 'aiplatform.googleapis.com' },
  };
  return { error: { code: 401, message, status: 'UNAUTHENTICATED', details: [errorInfo] } };
}

/** Reconstructed: Google's IAM wording for a missing `aiplatform.endpoints.predict` permission. */
export function permissionDenied(resource: VertexResource, model: string): GeminiErrorBody {
  const message = `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/${vertexModelPath(resource, model)}' (or it may not exist).`;
  return { error: { code: 403, message, status: 'PERMISSION_DENIED' } };
}

/** Reconstructed: Vertex's answer to a model the project cannot use or that does not exist. */
export function notFound(resource: VertexResource, model: string): GeminiErrorBody {
  const message = `Publisher Model \`${vertexModelPath(resource, model)}\` was not found or your project does not have access to it. Please ensure you are using a valid model version. For more information, see: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions`;
  return { error: { code: 404, message, status: 'NOT_FOUND' } };
}

/** Verbatim (decolua/9router#1081): a Gemini request Vertex's schema check refuses. */
export const invalidArgument: GeminiErrorBody = {
  error: {
    code: 400,
    message:
      "Invalid value at 'tools[0].function_declarations[37].parameters.properties[9].value' (type.googleapis.com/google.cloud.aiplatform.v1.Schema), \"object\"",
    status: 'INVALID_ARGUMENT',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [
          {
            field: 'tools[0].function_declarations[37].parameters.properties[9].value',
            description:
              "Invalid value at 'tools[0].function_declarations[37].parameters.properties[9].value' (type.googleapis.com/google.cloud.aiplatform.v1.Schema), \"object\"",
          },
        ],
      },
    ],
  },
};

/** Reconstructed: Google's standard UNAVAILABLE and INTERNAL wording. */
export const unavailable: GeminiErrorBody = { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } };
export const internal: GeminiErrorBody = { error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } };

/** Claude's model layer on Vertex refusing the body: Anthropic's form. */
export const claudeOnVertexRefusals = {
  /** Verbatim (jordigilh/kubernaut#686). */
  anthropicVersionMissing: {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'anthropic_version: Field required' },
    request_id: 'req_vrtx_011Ca3gY7enW621iyh15JZwY',
  },
  /** Reconstructed in the form of the field check above. */
  anthropicVersionWrong: {
    type: 'error',
    error: { type: 'invalid_request_error', message: "anthropic_version: Input should be 'vertex-2023-10-16'" },
  },
  /** Reconstructed from the verbatim `output_config: Extra inputs are not permitted` (OpenHands/software-agent-sdk#1630). */
  modelInBody: {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'model: Extra inputs are not permitted' },
  },
} as const;
