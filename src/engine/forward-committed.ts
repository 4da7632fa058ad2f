import type { StreamEvent } from '../providers/spec.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { AttemptContext } from './attempt-context.js';
import type { CommitReady, EventBatches } from './read-to-commit-point.js';
import type { StreamReading } from './stream-reading.js';

/**
 * The rest of a committed stream, as batches: the held events, then everything the upstream still
 * sends. Past the commit point a failure cannot move to another target: it ends the stream with a
 * `stream_interrupted` provider-error, which renderers turn into the dialect's error event (and
 * no `[DONE]`). When the stream dies before usage arrived, output tokens are estimated from what
 * was forwarded and marked estimated. What the commit-point reader already read of the held
 * events (their usage, a finish) is in `ready.reading`, which reads on from there.
 */
export async function* forwardCommitted(ready: CommitReady, batches: EventBatches, context: AttemptContext): AsyncGenerator<StreamEvent[], void, undefined> {
  const { record } = context;
  const { reading } = ready;
  record.committed = true;
  let readToEnd = ready.ended;
  let pendingNext = ready.pendingNext;
  try {
    const first = ready.held;
    if (forwardable(ready.remainder, first, reading, record) === 'failed') {
      yield first;
      return;
    }
    yield first;
    while (!readToEnd) {
      let next: IteratorResult<StreamEvent[], void>;
      try {
        next = await (pendingNext ?? batches.next());
        pendingNext = undefined;
      } catch (error) {
        if (context.endedAfterFinish) {
          readToEnd = true;
          break;
        }
        const failure = context.classify(error);
        if (failure.kind === 'cancelled') {
          record.kind = 'cancelled';
          return;
        }
        yield [interrupted(record, `the upstream stream failed after it started: ${failure.message}`, failure.kind === 'internal_error' ? 'internal_error' : 'stream_interrupted')];
        return;
      }
      if (next.done) {
        readToEnd = true;
        break;
      }
      if (!reading.finished) context.timer.touch();
      const out: StreamEvent[] = [];
      const state = forwardable(next.value, out, reading, record);
      if (out.length > 0) yield out;
      if (state === 'failed') return;
    }
    if (!reading.finished) yield [interrupted(record, 'the upstream stream ended before its finish')];
  } finally {
    record.latencyMs = Date.now() - context.startedAtMs;
    if (!reading.finished && record.kind === 'ok') record.kind = context.callerGone ? 'cancelled' : 'stream_interrupted';
    // A stream that died may hold only an early, partial usage (Anthropic's message_start).
    if (!reading.finished || record.usage === undefined) reading.estimateUsage();
    context.release(readToEnd);
    if (!readToEnd) void batches.return?.();
  }
}

/** The events of one upstream batch that go to the caller; stops at an in-band error. */
function forwardable(batch: StreamEvent[], into: StreamEvent[], reading: StreamReading, record: AttemptRecord): 'open' | 'failed' {
  for (const event of batch) {
    if (event.type === 'provider-error') {
      into.push(interrupted(record, `the upstream reported an error mid-stream: ${event.error.message}`));
      return 'failed';
    }
    if (reading.read(event)) into.push(event);
  }
  return 'open';
}

/**
 * The caller sees a stream_interrupted either way; the record keeps a failure of the gateway's
 * own apart, since that must not count against the target.
 */
function interrupted(record: AttemptRecord, message: string, kind: 'stream_interrupted' | 'internal_error' = 'stream_interrupted'): StreamEvent {
  record.kind = kind;
  record.message = message;
  return { type: 'provider-error', error: { kind: 'stream_interrupted', message } };
}
