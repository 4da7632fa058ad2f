import { pino, type DestinationStream, type Logger } from 'pino';
import { prettyLogLine } from './pretty-log-line.js';

export type LogFormat = 'pretty' | 'json';

/**
 * `LOG_FORMAT=pretty|json`; without it, readable lines when stdout is a terminal and JSON lines
 * (for machines) otherwise.
 */
export function logFormatFrom(env: NodeJS.ProcessEnv, stdoutIsTerminal: boolean): LogFormat {
  const format = env.LOG_FORMAT;
  if (format === undefined || format === '') return stdoutIsTerminal ? 'pretty' : 'json';
  if (format === 'pretty' || format === 'json') return format;
  throw new Error(`LOG_FORMAT must be "pretty" or "json", got "${format}"`);
}

/** The gateway's logger: JSON lines with ISO 8601 times, or the same entries as readable lines. */
export function createLogger(format: LogFormat, destination: NodeJS.WritableStream = process.stdout): Logger {
  const options = { name: 'switchyard', timestamp: pino.stdTimeFunctions.isoTime };
  if (format === 'json') return pino(options, destination as DestinationStream);
  const pretty: DestinationStream = {
    write: (line: string) => {
      destination.write(`${prettyLogLine(JSON.parse(line) as Record<string, unknown>)}\n`);
    },
  };
  return pino(options, pretty);
}
