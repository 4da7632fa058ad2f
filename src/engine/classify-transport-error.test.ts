import { describe, expect, it } from 'vitest';
import { AttemptTimeout } from './attempt-timer.js';
import { classifyTransportError } from './classify-transport-error.js';

const idle = () => new AbortController().signal;

describe('classifyTransportError', () => {
  it('the caller going away is cancelled, whatever the error says', () => {
    const caller = new AbortController();
    caller.abort();
    expect(classifyTransportError(new Error('socket hang up'), { caller: caller.signal, attempt: idle() }).kind).toBe('cancelled');
  });

  it('our own phase timeout is a timeout naming the phase', () => {
    const attempt = new AbortController();
    attempt.abort(new AttemptTimeout('first_token', 300));
    expect(classifyTransportError(new Error('aborted'), { caller: idle(), attempt: attempt.signal })).toMatchObject({ kind: 'timeout', type: 'first_token' });
  });

  it('connect timeouts are timeouts; refused, reset and DNS failures are connection failures', () => {
    const error = (code: string) => Object.assign(new Error(code), { code });
    const signals = { caller: idle(), attempt: idle() };
    expect(classifyTransportError(error('UND_ERR_CONNECT_TIMEOUT'), signals).kind).toBe('timeout');
    expect(classifyTransportError(error('ECONNREFUSED'), signals).kind).toBe('connection');
    expect(classifyTransportError(error('ECONNRESET'), signals).kind).toBe('connection');
    expect(classifyTransportError(new Error('fetch failed', { cause: error('ENOTFOUND') }), signals)).toMatchObject({ kind: 'connection', type: 'ENOTFOUND' });
  });

  it('a request the HTTP client refuses to send is the gateway\'s own failure, not a connection failure', () => {
    const refused = Object.assign(new Error('invalid authorization header'), { code: 'UND_ERR_INVALID_ARG' });
    expect(classifyTransportError(refused, { caller: idle(), attempt: idle() })).toMatchObject({ kind: 'internal_error', type: 'UND_ERR_INVALID_ARG' });
  });

  it('the gateway\'s own code failing while it reads an answer is an internal_error too', () => {
    const signals = { caller: idle(), attempt: idle() };
    expect(classifyTransportError(new RangeError('Maximum call stack size exceeded'), signals).kind).toBe('internal_error');
    expect(classifyTransportError(new TypeError("Cannot read properties of undefined (reading 'text')"), signals).kind).toBe('internal_error');
    expect(classifyTransportError(new SyntaxError('Unexpected token < in JSON'), signals).kind).toBe('connection');
  });
});
