import { REQUEST_LOG_MESSAGE } from './log-request.js';

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Fields every entry has, or that the line already shows. */
const SHOWN_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'err']);

/**
 * One pino JSON entry as a line for a person at a terminal: a request as
 * `12:00:01 req_… 200 ok demo-failover → mock-anthropic/claude-standby (2 attempts) 35 ms`
 * (`req_… [drill] 200 ok …` for the gateway's own requests),
 * anything else as `12:00:01 INFO message key=value …`. Control characters are shown escaped, so
 * a caller's model name cannot write to the terminal.
 */
export function prettyLogLine(entry: Record<string, unknown>): string {
  const time = typeof entry.time === 'string' || typeof entry.time === 'number' ? new Date(entry.time).toTimeString().slice(0, 8) : '--:--:--';
  if (entry.msg === REQUEST_LOG_MESSAGE && typeof entry.request_id === 'string') return printable(`${time} ${requestText(entry)}`);
  const level = LEVEL_NAMES[Number(entry.level)] ?? String(entry.level);
  const parts = [time, level.padEnd(5), String(entry.msg ?? '')];
  const error = entry.err as { message?: unknown } | undefined;
  if (error && typeof error.message === 'string') parts.push(`error: ${error.message}`);
  for (const [key, value] of Object.entries(entry)) {
    if (!SHOWN_FIELDS.has(key)) parts.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return printable(parts.join(' '));
}

function requestText(entry: Record<string, unknown>): string {
  const asked = entry.route ?? entry.model_requested ?? '(no model)';
  const attempts = Number(entry.attempts);
  const parts = [String(entry.request_id)];
  // The gateway's own traffic (a probe, a drill step, a canary prompt) is told apart from callers' at a glance.
  if (typeof entry.origin === 'string' && entry.origin !== 'caller') parts.push(`[${entry.origin}]`);
  parts.push(String(entry.http_status), String(entry.status), String(asked));
  if (typeof entry.served_by === 'string') parts.push(`→ ${entry.served_by}`);
  if (attempts > 0) parts.push(`(${attempts} attempt${attempts === 1 ? '' : 's'})`);
  parts.push(`${String(entry.latency_ms)} ms`);
  if (typeof entry.error_code === 'string') parts.push(`${entry.error_code}${typeof entry.error_message === 'string' ? `: ${entry.error_message}` : ''}`);
  return parts.join(' ');
}

function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
