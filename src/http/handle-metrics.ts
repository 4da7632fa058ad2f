import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from '../telemetry/metrics.js';

/** `GET /metrics`: the Prometheus exposition, collected at each scrape. */
export async function handleMetrics(_request: IncomingMessage, response: ServerResponse, metrics: Metrics): Promise<void> {
  const text = await metrics.registry.metrics();
  response.writeHead(200, { 'content-type': metrics.registry.contentType });
  response.end(text);
}
