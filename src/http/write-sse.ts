import type { ServerResponse } from 'node:http';
import type { StreamEvent } from '../providers/spec.js';
import { SSE_HEADERS } from './heartbeat.js';

export interface SseRenderer {
  write(event: StreamEvent): string;
  end(): string;
}

/** Past this much pending text a write goes out at once rather than at the end of the turn. */
const MAX_PENDING_CHARS = 64 * 1024;

/**
 * Sends a committed stream: headers go out with the first event (the commit point already
 * passed). Events rendered in the same turn of the event loop (typically all events of one
 * upstream read) are joined into one write: one syscall buffer instead of one per event, with at
 * most one turn of added delay. Backpressure is honoured (a slow caller slows the upstream read).
 * A stream that ends with a provider-error is closed without the normal ending.
 */
export async function writeSse(
  response: ServerResponse,
  headers: Record<string, string>,
  events: AsyncIterable<StreamEvent>,
  renderer: SseRenderer,
  onFirstWrite: () => void,
): Promise<'complete' | 'interrupted' | 'cancelled'> {
  // Headers may already be out: a heartbeat sent them while the first content was awaited.
  if (!response.headersSent) response.writeHead(200, { ...headers, ...SSE_HEADERS });
  let pending = '';
  let scheduled: NodeJS.Immediate | undefined;
  let congested = false;
  let wrote = false;
  const flush = () => {
    scheduled = undefined;
    if (pending === '' || response.destroyed) return;
    if (!wrote) {
      wrote = true;
      onFirstWrite();
    }
    congested = !response.write(pending);
    pending = '';
  };

  let failed = false;
  try {
    for await (const event of events) {
      if (response.destroyed) break;
      if (event.type === 'provider-error') failed = true;
      pending += renderer.write(event);
      if (pending.length >= MAX_PENDING_CHARS) flush();
      else scheduled ??= setImmediate(flush);
      if (congested) {
        await drainedOrClosed(response);
        congested = false;
      }
    }
  } finally {
    clearImmediate(scheduled);
  }
  if (response.destroyed) return 'cancelled';
  if (!wrote) onFirstWrite();
  response.end(pending + (failed ? '' : renderer.end()));
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
