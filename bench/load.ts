import autocannon from 'autocannon';
import { LatencyRecorder } from './latency-recorder.js';

export interface LoadSpec {
  url: string;
  body: string;
  /** Sent with every request besides content-type (the gateways' virtual key). */
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
}

export interface Measurement {
  connections: number;
  durationS: number;
  /** 2xx responses completed in the measured window. */
  responses: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMeanMs: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  statusCounts: Record<string, number>;
}

// A request slower than this counts as an error; no bench answer should come near it.
const requestTimeoutS = 10;

/** One closed-loop autocannon run: `connections` keep-alive connections, each sending the next request as soon as the last one is answered. */
export function runLoad(spec: LoadSpec): Promise<Measurement> {
  const recorder = new LatencyRecorder();
  return new Promise<Measurement>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...spec.headers },
        body: spec.body,
        connections: spec.connections,
        pipelining: 1,
        duration: spec.durationS,
        timeout: requestTimeoutS,
      },
      (error, result) => {
        if (error) {
          reject(error);
          return;
        }
        const { percentilesMs, meanMs } = recorder.summarise([0.5, 0.99]);
        const statusCounts: Record<string, number> = {};
        for (const [status, stats] of Object.entries(result.statusCodeStats)) statusCounts[status] = stats.count;
        resolve({
          connections: spec.connections,
          durationS: result.duration,
          responses: result['2xx'],
          requestsPerSecond: result['2xx'] / result.duration,
          latencyP50Ms: percentilesMs[0]!,
          latencyP99Ms: percentilesMs[1]!,
          latencyMeanMs: meanMs,
          errors: result.errors,
          timeouts: result.timeouts,
          non2xx: result.non2xx,
          mismatches: result.mismatches,
          statusCounts,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      if (statusCode >= 200 && statusCode < 300) recorder.record(responseTimeMs);
    });
  });
}

/** Everything that makes a measurement meaningless; empty when it is clean. */
export function problemsOf(measurement: Measurement): string[] {
  const problems: string[] = [];
  if (measurement.errors > 0) problems.push(`${measurement.errors} errors (${measurement.timeouts} of them timeouts)`);
  if (measurement.non2xx > 0) problems.push(`${measurement.non2xx} non-2xx responses (status counts ${JSON.stringify(measurement.statusCounts)})`);
  if (measurement.mismatches > 0) problems.push(`${measurement.mismatches} body mismatches`);
  if (measurement.responses === 0) problems.push('no successful response at all');
  return problems;
}
