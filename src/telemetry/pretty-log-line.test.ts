import { describe, expect, it } from 'vitest';
import { prettyLogLine } from './pretty-log-line.js';

const time = '2026-12-01T12:00:01.000Z';
const clock = new Date(time).toTimeString().slice(0, 8);

describe('prettyLogLine', () => {
  it('shows a served request as id, status, route, who served it, attempts and latency', () => {
    const line = prettyLogLine({
      level: 30,
      time,
      msg: 'request',
      request_id: 'req_1',
      status: 'ok',
      http_status: 200,
      route: 'demo-failover',
      model_requested: 'demo-failover',
      served_by: 'mock-anthropic/claude-standby',
      attempts: 2,
      latency_ms: 35,
      error_code: null,
      error_message: null,
    });
    expect(line).toBe(`${clock} req_1 200 ok demo-failover → mock-anthropic/claude-standby (2 attempts) 35 ms`);
  });

  it("marks the gateway's own requests with their origin, and callers' not at all", () => {
    const entry = { level: 30, time, msg: 'request', request_id: 'req_3', status: 'ok', http_status: 200, route: null, model_requested: 'conn-a/m', served_by: 'conn-a/m', attempts: 1, latency_ms: 4 };
    expect(prettyLogLine({ ...entry, origin: 'probe' })).toBe(`${clock} req_3 [probe] 200 ok conn-a/m → conn-a/m (1 attempt) 4 ms`);
    expect(prettyLogLine({ ...entry, origin: 'caller' })).toBe(`${clock} req_3 200 ok conn-a/m → conn-a/m (1 attempt) 4 ms`);
  });

  it('shows a refused request with the model it asked for and why, control characters escaped', () => {
    const line = prettyLogLine({
      level: 30,
      time,
      msg: 'request',
      request_id: 'req_2',
      status: 'rejected',
      http_status: 404,
      route: null,
      model_requested: 'gpt-4o\u001b[31m',
      served_by: null,
      attempts: 0,
      latency_ms: 1,
      error_code: 'model_not_found',
      error_message: 'The model `gpt-4o` does not exist.',
    });
    expect(line).toBe(`${clock} req_2 404 rejected gpt-4o\\u001b[31m 1 ms model_not_found: The model \`gpt-4o\` does not exist.`);
  });

  it('shows any other entry as level, message, error and fields', () => {
    const line = prettyLogLine({ level: 50, time, msg: 'writing request records failed; will retry', pid: 1, hostname: 'h', name: 'switchyard', err: { message: 'disk full' }, batch: 3 });
    expect(line).toBe(`${clock} ERROR writing request records failed; will retry error: disk full batch=3`);
  });
});
