import type { ServerResponse } from 'node:http';
import type { SseRenderer } from '../dialects/caller-dialect.js';
import type { StreamEvent } from '../providers/spec.js';
import type { Redact } from '../records/redact-secrets.js';
import { SSE_HEADERS } from './heartbeat.js';

/**
 * Sends a committed stream: headers go out with the first batch (the commit point already
 * passed). Each batch — the events of one upstream read — is rendered into one write, so a
 * burst of events costs one syscall buffer rather than one per event. Backpressure is honoured (a
 * slow caller slows the upstream read). A stream that ends with a provider-error is closed without
 * the normal ending; that error's message, often the provider's own words, is redacted on its way
 * out. `beforeEnd` runs before a complete stream's last frame is written, which waits for it.
 * A stream the gateway itself cut short (`cutShort` says why: a shutdown) ends with that error
 * event instead of its normal ending.
 */
export async function writeSse(
  response: ServerResponse,
  headers: Record<string, string>,
  batches: AsyncIterable<StreamEvent[]>,
  renderer: SseRenderer,
  options: { onFirstWrite: () => void; redact: Redact; beforeEnd?: () => Promise<void> },
  cutShort?: () => string | undefined,
): Promise<'complete' | 'interrupted' | 'cancelled'> {
  const { onFirstWrite, redact } = options;
  // Headers may already be out: a heartbeat sent them while the first content was awaited.
  if (!response.headersSent) response.writeHead(200, { ...headers, ...SSE_HEADERS });
  let wrote = false;
  let failed = false;
  for await (const batch of batches) {
    if (response.destroyed) break;
    let text = '';
    for (const event of batch) {
      if (event.type === 'provider-error') {
        failed = true;
        text += renderer.write({ type: 'provider-error', error: { ...event.error, message: redact(event.error.message) } });
        continue;
      }
      text += renderer.write(event);
    }
    if (text === '') continue;
    if (!wrote) {
      wrote = true;
      onFirstWrite();
    }
    if (!response.write(text)) await drainedOrClosed(response);
  }
  if (response.destroyed) return 'cancelled';
  if (!wrote) onFirstWrite();
  const cutBecause = failed ? undefined : cutShort?.();
  if (cutBecause !== undefined) {
    response.end(renderer.write({ type: 'provider-error', error: { kind: 'stream_interrupted', message: cutBecause } }));
    return 'interrupted';
  }
  if (!failed) await options.beforeEnd?.();
  response.end(failed ? '' : renderer.end());
  return failed ? 'interrupted' : 'complete';
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
