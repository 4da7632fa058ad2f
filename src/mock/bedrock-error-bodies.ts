/**
 * Bedrock Runtime errors: the exception name (sent in `x-amzn-errortype`), its HTTP status and
 * its `{"message": …}` body. Bodies come from the captures under
 * `test/contract/bedrock/__fixtures__/errors/`, or carry messages observed in public reports
 * (see that folder's README.md); those marked reconstructed use the API reference's wording.
 */

export interface BedrockError {
  /** PascalCase, as in `x-amzn-errortype`. */
  type: string;
  status: number;
  body: { message: string } & Record<string, unknown>;
  /** The coral namespace after the name in `x-amzn-errortype`; Bedrock's own unless the AWS front door answered. */
  namespace?: string;
}

export const bedrockErrors = {
  throttling: {
    type: 'ThrottlingException',
    status: 429,
    body: { message: 'Too many tokens, please wait before trying again.' },
  },
  dailyTokens: {
    type: 'ThrottlingException',
    status: 429,
    body: { message: 'Too many tokens per day, please wait before trying again.' },
  },
  serviceUnavailable: {
    type: 'ServiceUnavailableException',
    status: 503,
    body: {
      exceptionMetadata: {
        qosTier: '10',
        rudiMetadata:
          '{"queueDwellTimeInMs":0,"expectedQueueDelayInMs":394460,"variantIdentifier":"anthropic.claude-3-7-sonnet-20250219-v1:0:18k"}',
      },
      message: 'Too many connections, please wait before trying again.',
    },
  },
  contextTooLong: {
    type: 'ValidationException',
    status: 400,
    body: { message: 'Input is too long for requested model.' },
  },
  onDemandUnsupported: {
    type: 'ValidationException',
    status: 400,
    body: {
      message:
        'Invocation of model ID anthropic.claude-sonnet-4-20250514-v1:0 with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model.',
    },
  },
  /** What Bedrock's content filters answer on models that filter by refusing the request (Titan, Stability). */
  contentFiltered: {
    type: 'ValidationException',
    status: 400,
    body: { message: 'This request has been blocked by our content filters.' },
  },
  accessDenied: {
    type: 'AccessDeniedException',
    status: 403,
    body: { message: "You don't have access to the model with the specified model ID." },
  },
  /** A bad signature or API key, rejected by the AWS front door before Bedrock sees the request. */
  unrecognizedClient: {
    type: 'UnrecognizedClientException',
    status: 403,
    body: { message: 'The security token included in the request is invalid.' },
    namespace: 'http://internal.amazon.com/coral/com.amazon.coral.service/',
  },
  endOfLife: {
    type: 'ResourceNotFoundException',
    status: 404,
    body: { message: 'This model version has reached the end of its life. Please refer to the AWS documentation for more details.' },
  },
  /** Reconstructed. */
  modelTimeout: {
    type: 'ModelTimeoutException',
    status: 408,
    body: { message: 'Model has timed out in processing the request. Try your request again.' },
  },
  /** Reconstructed; the API adds the model's own status and the resource. */
  modelError: {
    type: 'ModelErrorException',
    status: 424,
    body: { message: 'The model returned an error. Try your request again.', originalStatusCode: 500 },
  },
  /** Reconstructed. */
  internalServer: {
    type: 'InternalServerException',
    status: 500,
    body: { message: 'The system encountered an unexpected error during processing. Try your request again.' },
  },
} as const satisfies Record<string, BedrockError>;

export const bedrockErrorNamespace = 'http://internal.amazon.com/coral/com.amazon.bedrock/';

/**
 * Exceptions inside a 200 event stream: lowerCamelCase names in `:exception-type`, the same
 * `{"message": …}` payload. The service-unavailable one is captured (stream-exception-frame.txt).
 */
export const bedrockStreamExceptions = {
  overloaded: { type: 'serviceUnavailableException', body: { message: 'Bedrock is unable to process your request.' } },
  /** Reconstructed: the stream-only exception for a model failing mid-answer. */
  server_error: {
    type: 'modelStreamErrorException',
    body: { message: 'The model encountered an error while streaming. Try your request again.', originalStatusCode: 500 },
  },
} as const;
