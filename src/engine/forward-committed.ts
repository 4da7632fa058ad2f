import type { StreamEvent } from '../providers/spec.js';
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
  const { reading } = ready;
  context.committed();
  let readToEnd = ready.ended;
  let pendingNext = ready.pendingNext;
  try {
    const first = ready.held;
    for (const event of forwardable(ready.remainder, reading, context)) first.push(event);
    yield first;
    if (endsInFailure(first)) return;
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
          context.endedAs('cancelled');
          return;
        }
        yield [interrupted(context, `the upstream stream failed after it started: ${failure.message}`, failure.kind === 'internal_error' ? 'internal_error' : 'stream_interrupted')];
        return;
      }
      if (next.done) {
        readToEnd = true;
        break;
      }
      if (!reading.finished) context.timer.touch();
      const out = forwardable(next.value, reading, context);
      if (out.length > 0) yield out;
      if (endsInFailure(out)) return;
    }
    if (!reading.finished) yield [interrupted(context, 'the upstream stream ended before its finish')];
  } finally {
    context.streamEnded(reading.finished);
    // A stream that died may hold only an early, partial usage (Anthropic's message_start).
    if (!reading.finished || context.record.usage === undefined) reading.estimateUsage();
    context.release(readToEnd);
    if (!readToEnd) void batches.return?.();
  }
}

/**
 * The events of one upstream batch that go to the caller; stops at an in-band error, which ends
 * them as the interruption. A batch read afresh from each network read, it goes out itself when
 * every event in it does (most do): it is copied only from the first event that does not.
 */
function forwardable(batch: StreamEvent[], reading: StreamReading, context: AttemptContext): StreamEvent[] {
  let out: StreamEvent[] | undefined;
  for (let index = 0; index < batch.length; index++) {
    const event = batch[index]!;
    if (event.type === 'provider-error') {
      out ??= batch.slice(0, index);
      out.push(interrupted(context, `the upstream reported an error mid-stream: ${event.error.message}`));
      return out;
    }
    if (reading.read(event)) out?.push(event);
    else out ??= batch.slice(0, index);
  }
  return out ?? batch;
}

/** Whether forwarding stopped at an in-band error: only the interruption forwards a provider-error. */
function endsInFailure(events: readonly StreamEvent[]): boolean {
  return events.at(-1)?.type === 'provider-error';
}

/**
 * The caller sees a stream_interrupted either way; the record keeps a failure of the gateway's
 * own apart, since that must not count against the target.
 */
function interrupted(context: AttemptContext, message: string, kind: 'stream_interrupted' | 'internal_error' = 'stream_interrupted'): StreamEvent {
  context.endedAs(kind, message);
  return { type: 'provider-error', error: { kind: 'stream_interrupted', message } };
}
