import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'sk-sy-';
const SECRET_BYTES = 32;
/** `sk-sy-` and four random characters: enough for a human to tell keys apart, useless to a guesser. */
const DISPLAY_PREFIX_LENGTH = 10;
/** 32 bytes in unpadded base64url are 43 characters. */
const SECRET_SHAPE = /^sk-sy-[A-Za-z0-9_-]{43}$/;

/** A new virtual key: `sk-sy-` + 256 random bits. */
export function generateSecret(): string {
  return randomSecret(SECRET_PREFIX);
}

/** `prefix` + 256 random bits in unpadded base64url (43 characters): every secret the gateway hands out. */
export function randomSecret(prefix: string): string {
  return prefix + randomBytes(SECRET_BYTES).toString('base64url');
}

/**
 * The stored form of a secret: lowercase hex SHA-256. A fast, unsalted hash is the right tool
 * here: slow salted hashes (bcrypt, scrypt) exist to make guessing low-entropy passwords
 * expensive, but 256 random bits cannot be guessed, so slowness would protect nothing and
 * would cost every authentication. Unsalted, the hash itself is the lookup key.
 */
export function hashSecret(secret: string): string {
  // The one-shot form: no Hash object per request, measurably cheaper on the gate's path.
  return hash('sha256', secret, 'hex');
}

export function keyPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Anything else cannot be a key, so it is refused without hashing or a store lookup. */
export function isWellFormedSecret(text: string): boolean {
  return SECRET_SHAPE.test(text);
}

/** Compares two hex digests in time independent of where they differ. */
export function hashesMatch(leftHex: string, rightHex: string): boolean {
  const left = Buffer.from(leftHex, 'hex');
  const right = Buffer.from(rightHex, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
