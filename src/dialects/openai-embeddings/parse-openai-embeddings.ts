import { z } from 'zod';
import { modelNameSchema } from '../shared/model-name.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { EmbeddingsRequest } from '../../providers/spec.js';
import { validateBody } from '../shared/validate-body.js';

/** OpenAI's limit on inputs per request; a longer list is the caller's mistake, caught before any provider. */
const MAX_INPUTS = 2048;

const token = z.number().int().nonnegative();
const embeddingsBodySchema = z.object({
  model: modelNameSchema,
  input: z.union([
    z.string().min(1),
    z.array(z.string().min(1)).min(1).max(MAX_INPUTS),
    z.array(token).min(1),
    z.array(z.array(token).min(1)).min(1).max(MAX_INPUTS),
  ]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});

export interface ParsedEmbeddings {
  requestedModel: string;
  request: EmbeddingsRequest;
}

/** An OpenAI `/v1/embeddings` body → the canonical request; invalid input is a 400 naming the field. */
export function parseOpenAiEmbeddings(body: unknown): ParsedEmbeddings {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new GatewayError('The request body must be a JSON object.', { status: 400, code: 'invalid_request_error' });
  }
  const { model, input, encoding_format, dimensions, user } = validateBody(embeddingsBodySchema, body);
  return {
    requestedModel: model,
    request: {
      input: typeof input === 'string' ? [input] : isTokenList(input) ? [input] : input,
      encodingFormat: encoding_format ?? 'float',
      ...(dimensions === undefined ? {} : { dimensions }),
      ...(user === undefined ? {} : { user }),
    },
  };
}

function isTokenList(input: string[] | number[] | number[][]): input is number[] {
  return typeof input[0] === 'number';
}
