/** An error inside a stream; a final error after a heartbeat also names the request and its attempts. */
export interface StreamError {
  kind: string;
  message: string;
  requestId?: string;
  attempts?: readonly Record<string, unknown>[];
}

/**
 * What a final error carries besides its message (`request_id`, `attempts`), for its in-band
 * form: after a heartbeat the caller learns as much as the HTTP error would have told it.
 */
export function finalErrorFields(error: StreamError): Record<string, unknown> {
  return {
    ...(error.requestId === undefined ? {} : { request_id: error.requestId }),
    ...(error.attempts === undefined ? {} : { attempts: error.attempts }),
  };
}
