import { describe, expect, it } from 'vitest';
import { authExposureProblem } from './check-auth-exposure.js';
import { configSchema } from './schema.js';

const withAuth = (mode: 'keys' | 'none') => configSchema.parse({ auth: { mode } });

describe('auth.mode none only on loopback', () => {
  it.each(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'])('is fine on %s', (host) => {
    expect(authExposureProblem(withAuth('none'), host)).toBeUndefined();
  });

  it.each(['0.0.0.0', '10.0.0.5', '::', 'gateway.internal'])('is refused on %s, saying why', (host) => {
    expect(authExposureProblem(withAuth('none'), host)).toMatch(/only allowed while listening on loopback/);
  });

  it('keys mode may listen anywhere', () => {
    expect(authExposureProblem(withAuth('keys'), '0.0.0.0')).toBeUndefined();
  });
});
