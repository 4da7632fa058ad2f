import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * A key of its own for each use of the one secret the replicas share (`admin.oidc.client_secret`):
 * a value signed for one use is never accepted for another.
 */
export function derivedKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'switchyard sign-in', purpose, 32));
}

/** `payload.signature`, both base64url: readable by whoever holds it, changed by nobody without the key. */
export function signValue(payload: unknown, key: Buffer): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${signatureOf(body, key)}`;
}

/** The payload of a value `signValue` made with this key; undefined for anything else (tampered, other key, malformed). */
export function openSignedValue(value: string, key: Buffer): unknown {
  const separator = value.indexOf('.');
  if (separator === -1) return undefined;
  const body = value.slice(0, separator);
  const presented = Buffer.from(value.slice(separator + 1), 'base64url');
  const expected = Buffer.from(signatureOf(body, key), 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function signatureOf(body: string, key: Buffer): string {
  return createHmac('sha256', key).update(body).digest('base64url');
}
