import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * Throws a 401 unless the request carries `Authorization: Bearer <admin.token>`. Without a
 * configured token everyone is refused: the admin API is never open (docs/keys-and-budgets.md). Both sides are
 * hashed before the constant-time compare so neither the content nor the length leaks.
 */
export function checkAdminToken(request: IncomingMessage, adminToken: string | undefined): void {
  if (adminToken === undefined || adminToken === '') {
    throw refusal('The admin API is disabled: no admin.token is configured.');
  }
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  if (presented === undefined) throw refusal('Missing admin token: send "Authorization: Bearer <admin.token>".');
  if (!timingSafeEqual(sha256(presented), sha256(adminToken))) throw refusal('Invalid admin token.');
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The envelope OpenAI uses for a refused key, so SDKs raise their authentication error. */
function refusal(message: string): GatewayError {
  return new GatewayError(message, { status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
}
