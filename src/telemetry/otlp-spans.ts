import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { AttemptRecordEntry, RequestRecord } from '../core/request-record.js';
import { redactRecord } from '../records/redact-record.js';
import type { RequestSpans } from './request-spans.js';

/** `gen_ai.provider.name` values of the GenAI semantic conventions, by our provider names. */
const GEN_AI_PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
  bedrock: 'aws.bedrock',
  vertex: 'gcp.vertex_ai',
  'azure-openai': 'azure.ai.openai',
};

/**
 * The OpenTelemetry SDK and its OTLP exporter, started for `url`: imported only by
 * `createRequestSpans` when tracing is on, since loading them costs every start a few hundred ms.
 */
export function startOtlpSpans(url: string, serviceName: string): RequestSpans {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  const tracer = provider.getTracer('switchyard');
  return {
    export: (record, knownSecrets) => exportRecord(tracer, redactRecord(record, knownSecrets)),
    shutdown: () => provider.shutdown(),
  };
}

function exportRecord(tracer: Tracer, record: RequestRecord): void {
  const startMs = Date.parse(record.created_at);
  // The GenAI conventions name no Responses operation: a Responses request is a chat.
  const operation = record.operation === 'embeddings' ? 'embeddings' : 'chat';
  const requestSpan = tracer.startSpan(
    // Named after the route: a name from the config, not text a caller sent.
    `${operation} ${record.route ?? record.model_requested ?? 'unknown'}`,
    {
      kind: SpanKind.SERVER,
      startTime: startMs,
      attributes: withoutNulls({
        'gen_ai.operation.name': operation,
        'gen_ai.request.model': record.model_requested,
        'gen_ai.response.model': record.served?.model,
        'gen_ai.provider.name': record.served ? GEN_AI_PROVIDERS[record.served.provider] ?? record.served.provider : undefined,
        'gen_ai.usage.input_tokens': record.usage?.input_tokens,
        'gen_ai.usage.output_tokens': record.usage?.output_tokens,
        'http.response.status_code': record.http_status,
        'error.type': record.error_code ?? undefined,
        'switchyard.request_id': record.id,
        'switchyard.route': record.route,
        'switchyard.status': record.status,
        'switchyard.attempts': record.attempts.length,
        'switchyard.cost_usd': record.cost_usd,
        'switchyard.origin': record.origin,
      }),
    },
  );
  if (record.status !== 'ok') requestSpan.setStatus({ code: SpanStatusCode.ERROR, message: record.error_code ?? record.status });
  const parent = trace.setSpan(ROOT_CONTEXT, requestSpan);
  for (const attempt of record.attempts) {
    const span = tracer.startSpan(`${operation} ${attempt.model}`, { kind: SpanKind.CLIENT, startTime: startMs + attempt.started_ms, attributes: attemptAttributes(operation, attempt) }, parent);
    if (attempt.kind !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: attempt.kind });
    span.end(startMs + attempt.started_ms + attempt.latency_ms);
  }
  requestSpan.end(startMs + record.latency_ms);
}

function attemptAttributes(operation: string, attempt: AttemptRecordEntry): Attributes {
  return withoutNulls({
    'gen_ai.operation.name': operation,
    'gen_ai.provider.name': GEN_AI_PROVIDERS[attempt.provider] ?? attempt.provider,
    'gen_ai.request.model': attempt.model,
    'gen_ai.usage.input_tokens': attempt.usage?.input_tokens,
    'gen_ai.usage.output_tokens': attempt.usage?.output_tokens,
    'http.response.status_code': attempt.http_status,
    'error.type': attempt.kind === 'ok' ? undefined : attempt.kind,
    'switchyard.attempt': attempt.n,
    'switchyard.connection': attempt.connection,
    'switchyard.committed': attempt.committed,
    'switchyard.usage_estimated': attempt.usage?.estimated,
  });
}

function withoutNulls(attributes: Record<string, string | number | boolean | null | undefined>): Attributes {
  const kept: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) if (value !== null && value !== undefined) kept[name] = value;
  return kept;
}
