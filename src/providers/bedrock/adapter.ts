import type { ProviderAdapter } from '../spec.js';
import { buildBedrockRequest } from './build-request.js';
import { parseBedrockError } from './parse-error.js';
import { parseBedrockResponse } from './parse-response.js';
import { BedrockStreamParser } from './parse-stream.js';

/** The Bedrock Converse / ConverseStream adapter; requests are SigV4-signed per attempt, after it. */
export const bedrockAdapter: ProviderAdapter = {
  dialect: 'bedrock',
  framing: 'aws-eventstream',
  buildRequest: buildBedrockRequest,
  parseResponse: parseBedrockResponse,
  createStreamParser: () => new BedrockStreamParser(),
  parseError: parseBedrockError,
};
