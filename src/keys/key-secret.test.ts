import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateSecret, hashesMatch, hashSecret, isWellFormedSecret, keyPrefix } from './key-secret.js';

describe('key secrets', () => {
  it('are sk-sy- and 32 random bytes in base64url, different every time', () => {
    const secrets = new Set(Array.from({ length: 100 }, generateSecret));
    expect(secrets.size).toBe(100);
    for (const secret of secrets) {
      expect(secret).toMatch(/^sk-sy-[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret.slice('sk-sy-'.length), 'base64url')).toHaveLength(32);
      expect(isWellFormedSecret(secret)).toBe(true);
    }
  });

  it('refuses anything not shaped like a key', () => {
    const secret = generateSecret();
    for (const text of ['', 'sk-sy-', secret.slice(0, -1), `${secret}x`, secret.replace('sk-sy-', 'sk-xx-'), `${secret.slice(0, -1)}=`, ` ${secret}`]) {
      expect(isWellFormedSecret(text)).toBe(false);
    }
  });

  it('hash to lowercase hex SHA-256', () => {
    const secret = generateSecret();
    expect(hashSecret(secret)).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(hashSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret(secret)).not.toBe(hashSecret(generateSecret()));
  });

  it('show a 10-character prefix', () => {
    const secret = generateSecret();
    expect(keyPrefix(secret)).toBe(secret.slice(0, 10));
    expect(keyPrefix(secret)).toMatch(/^sk-sy-.{4}$/);
  });

  it('compare digests exactly', () => {
    const hash = hashSecret(generateSecret());
    expect(hashesMatch(hash, hash)).toBe(true);
    expect(hashesMatch(hash, `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`)).toBe(false);
    expect(hashesMatch(hash, hash.slice(0, -2))).toBe(false);
    expect(hashesMatch(hash, hashSecret(generateSecret()))).toBe(false);
  });
});
