import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { secretRedactor } from '../records/redact-secrets.js';
import { redactingLogger } from './redacting-logger.js';

function capturedLogger(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

describe('redactingLogger', () => {
  it('redacts known secrets and key shapes in messages, fields and errors, in children too', async () => {
    const { lines, logger } = capturedLogger();
    let secrets = new Set(['provider-secret-0001']);
    const redacting = redactingLogger(logger, () => secretRedactor(secrets));
    redacting.info('upstream said provider-secret-0001');
    redacting.error({ err: new Error('bad key provider-secret-0001'), requestId: 'req_1' }, 'failed');
    redacting.child({ part: 'store' }).warn({ detail: { nested: 'Bearer abc.def sk-abcdefghijkl' } }, 'nested');
    // A reload that brings a new key: the next line is redacted against it.
    secrets = new Set(['provider-secret-0002']);
    redacting.info('now provider-secret-0002');
    await new Promise((resolve) => setImmediate(resolve));

    const text = lines.join('');
    expect(lines).toHaveLength(4);
    expect(text).not.toMatch(/provider-secret-000|abc\.def|sk-abcdefghijkl/);
    expect(text).toContain('upstream said [redacted]');
    expect(JSON.parse(lines[1]!)).toMatchObject({ requestId: 'req_1', err: { message: 'bad key [redacted]' } });
    expect(JSON.parse(lines[2]!)).toMatchObject({ part: 'store', detail: { nested: 'Bearer [redacted] [redacted]' } });
  });

  it('leaves the logger it wraps as it was', async () => {
    const { lines, logger } = capturedLogger();
    redactingLogger(logger, () => secretRedactor(new Set(['provider-secret-0001'])));
    logger.info('provider-secret-0001');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.join('')).toContain('provider-secret-0001');
  });
});
