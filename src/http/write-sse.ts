import type { ServerResponse } from 'node:http';
import type { StreamEvent } from '../providers/spec.js';

export interface SseRenderer {
  write(event: StreamEvent): string;
  end(): string;
}

/**
 * Sends a committed stream: headers go out with the first event (the commit point already
 * passed), each event is rendered and written with backpressure (a slow caller slows the
 * upstream read). A stream that ends with a provider-error is closed without the normal ending.
 */
export async function writeSse(
  response: ServerResponse,
  headers: Record<string, string>,
  events: AsyncIterable<StreamEvent>,
  renderer: SseRenderer,
): Promise<void> {
  response.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });
  let failed = false;
  for await (const event of events) {
    if (response.destroyed) break;
    if (event.type === 'provider-error') failed = true;
    const text = renderer.write(event);
    if (text !== '' && !response.write(text)) await drainedOrClosed(response);
  }
  if (response.destroyed) return;
  response.end(failed ? undefined : renderer.end());
}

function drainedOrClosed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
