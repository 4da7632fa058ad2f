import { isRecord } from '../shared/json-fields.js';

/** Where Google exchanges a key's assertion when the key names no `token_uri` of its own. */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** The fields of a Google service-account key (its JSON file) that an access token is made from. */
export interface ServiceAccountKey {
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
  /** Where the key's access tokens are exchanged (a private endpoint, or the mock in tests). */
  tokenUri: string;
}

/**
 * Reads a service-account key's JSON text, or says what is wrong with it. The reason never
 * quotes the text, which holds the private key.
 */
export function parseServiceAccountKey(text: string): { ok: true; key: ServiceAccountKey } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'is not JSON (expected a service-account key file as Google Cloud downloads it)' };
  }
  if (!isRecord(value)) return { ok: false, reason: 'is not a JSON object (expected a service-account key)' };
  if (value.type !== 'service_account') return { ok: false, reason: `has type ${JSON.stringify(value.type ?? null)}, not "service_account"` };
  const { client_email: clientEmail, private_key: privateKey, private_key_id: privateKeyId, token_uri: tokenUri } = value;
  if (typeof clientEmail !== 'string' || clientEmail === '') return { ok: false, reason: 'has no client_email' };
  if (typeof privateKey !== 'string' || !privateKey.includes('PRIVATE KEY')) return { ok: false, reason: 'has no private_key in PEM form' };
  if (tokenUri !== undefined && (typeof tokenUri !== 'string' || !/^https?:\/\//.test(tokenUri))) return { ok: false, reason: 'has a token_uri that is not an http(s) URL' };
  return {
    ok: true,
    key: {
      clientEmail,
      privateKey,
      ...(typeof privateKeyId === 'string' ? { privateKeyId } : {}),
      tokenUri: typeof tokenUri === 'string' ? tokenUri : GOOGLE_TOKEN_URI,
    },
  };
}
