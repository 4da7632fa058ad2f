import type { RequestRecord } from '../core/request-record.js';

export interface RequestSpans {
  /**
   * Turns a finished request's record into spans: the request, and one child per attempt, with
   * secrets removed as for the log (a key pasted as `model` names no span).
   */
  export(record: RequestRecord, knownSecrets: () => ReadonlySet<string>): void;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry traces (docs/operations.md), only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-only
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: otherwise nothing is built, nothing of the SDK is
 * even loaded, and requests pay nothing. Spans are made from the finished record, after the
 * response, with the times it holds, so tracing adds no work to the request path itself; export is
 * batched in the background. Attributes follow the GenAI semantic conventions; no message text or
 * secret goes into a span (`otlp-spans.ts`).
 */
export function createRequestSpans(env: NodeJS.ProcessEnv): RequestSpans | undefined {
  const url = tracesUrl(env);
  if (url === undefined) return undefined;
  // The SDK loads in the background; records finished before it is in are exported, in order, once it is.
  const started = import('./otlp-spans.js').then(({ startOtlpSpans }) => startOtlpSpans(url, env.OTEL_SERVICE_NAME ?? 'switchyard'));
  // A failed load is reported once, by `shutdown`; exports meanwhile have nowhere to go.
  started.catch(() => undefined);
  return {
    export: (record, knownSecrets) => void started.then((spans) => spans.export(record, knownSecrets), () => undefined),
    shutdown: () => started.then((spans) => spans.shutdown()),
  };
}

/** The generic endpoint gets the signal's path appended; the traces-only one is used as given. */
function tracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (tracesEndpoint) return tracesEndpoint;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return endpoint ? `${endpoint.replace(/\/+$/, '')}/v1/traces` : undefined;
}
