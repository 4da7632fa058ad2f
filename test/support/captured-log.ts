import { Writable } from 'node:stream';
import { pino, type Level, type Logger } from 'pino';

/**
 * A logger for a gateway under test whose every line (JSON, as `serve` writes them when not at a
 * terminal) is pushed onto `lines`, at `level` and above: what the gateway logged, to assert on.
 */
export function loggerInto(lines: string[], level: Level = 'trace'): Logger {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return pino({ level }, stream);
}
