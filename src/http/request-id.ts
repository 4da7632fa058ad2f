import { randomBytes } from 'node:crypto';

/** `req_` + time (so ids sort by creation) + randomness: the record id and `x-request-id`. */
export function newRequestId(): string {
  return `req_${Date.now().toString(36)}${randomBytes(8).toString('hex')}`;
}
