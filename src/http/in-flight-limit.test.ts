import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { InFlightLimit } from './in-flight-limit.js';

const request = () => ({}) as IncomingMessage;

describe('InFlightLimit', () => {
  it('refuses past the limit with 503 overloaded and a retry-after, and takes requests again once one leaves', () => {
    const limit = new InFlightLimit(() => 2);
    const [first, second, third] = [request(), request(), request()];
    limit.enter(first);
    limit.enter(second);
    const refusal = (() => {
      try {
        limit.enter(third);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ status: 503, code: 'overloaded' });
    expect((refusal as GatewayError).retryAfterMs).toBeGreaterThan(0);
    limit.leave(first);
    expect(() => limit.enter(third)).not.toThrow();
  });

  it('leaving without a slot (refused, or never read its body) frees nothing', () => {
    const limit = new InFlightLimit(() => 1);
    const holder = request();
    limit.enter(holder);
    limit.leave(request());
    expect(() => limit.enter(request())).toThrow(GatewayError);
  });

  it('follows the configured limit as it changes', () => {
    let max = 1;
    const limit = new InFlightLimit(() => max);
    limit.enter(request());
    max = 2;
    expect(() => limit.enter(request())).not.toThrow();
  });
});
