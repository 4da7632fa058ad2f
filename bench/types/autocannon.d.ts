/**
 * The slice of autocannon's programmatic API the benchmark uses. autocannon ships no type
 * declarations and @types/autocannon is not a dependency, so this file declares just what
 * bench/load.ts calls and reads; everything else stays unknown.
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface AutocannonOptions {
    url: string;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
  }

  /** autocannon's latency/request histograms summarised; only the fields read are listed. */
  interface AutocannonHistogram {
    average: number;
    p50: number;
    p99: number;
  }

  interface AutocannonResult {
    /** Seconds, to 0.01. */
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: AutocannonHistogram;
    requests: AutocannonHistogram & { sent: number };
  }

  interface AutocannonInstance extends EventEmitter {
    stop(): void;
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, responseBytes: number, responseTimeMs: number) => void,
    ): this;
    on(event: 'reqError', listener: (error: Error) => void): this;
  }

  function autocannon(
    options: AutocannonOptions,
    callback: (error: Error | null, result: AutocannonResult) => void,
  ): AutocannonInstance;

  export default autocannon;
  export type { AutocannonOptions, AutocannonResult, AutocannonInstance };
}
