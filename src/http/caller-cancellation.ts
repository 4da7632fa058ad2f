import type { ServerResponse } from 'node:http';
import { CALLER_LEFT, Cancellation } from '../core/cancellation.js';

/** Aborts when the caller closes its connection before its answer is finished. */
export function callerCancellation(response: ServerResponse): Cancellation {
  const caller = new Cancellation();
  response.once('close', () => {
    if (!response.writableFinished) caller.abort(CALLER_LEFT);
  });
  return caller;
}
