import type { StreamEvent } from '../providers/spec.js';
import { estimatedUsage, estimateTokens, outputCharactersOf } from '../metering/estimate-tokens.js';
import { trustedUsage } from '../metering/trusted-usage.js';
import type { AttemptContext } from './attempt-context.js';
import type { CommitReady, EventBatches } from './read-to-commit-point.js';

/**
 * The rest of a committed stream, as batches: the held events, then everything the upstream still
 * sends. Past the commit point a failure cannot move to another target: it ends the stream with a
 * `stream_interrupted` provider-error, which renderers turn into the dialect's error event (and
 * no `[DONE]`). When the stream dies before usage arrived, output tokens are estimated from what
 * was forwarded and marked estimated.
 */
export async function* forwardCommitted(
  ready: CommitReady,
  batches: EventBatches,
  context: AttemptContext,
  options: { estimateInputTokens: () => number },
): AsyncGenerator<StreamEvent[], void, undefined> {
  const { record } = context;
  record.committed = true;
  let finished = false;
  let readToEnd = ready.ended;
  let forwardedCharacters = ready.outputCharacters;
  let pendingNext = ready.pendingNext;

  // The caller sees a stream_interrupted either way; the record keeps a failure of the gateway's
  // own apart, since that must not count against the target.
  const interrupted = (message: string, kind: 'stream_interrupted' | 'internal_error' = 'stream_interrupted'): StreamEvent => {
    record.kind = kind;
    record.message = message;
    return { type: 'provider-error', error: { kind: 'stream_interrupted', message } };
  };
  /** The events of one upstream batch that go to the caller; stops at an in-band error. */
  const forwardable = (batch: StreamEvent[], into: StreamEvent[]): 'open' | 'failed' => {
    for (const event of batch) {
      switch (event.type) {
        case 'malformed-event':
          record.malformedEvents++;
          continue;
        case 'provider-error':
          into.push(interrupted(`the upstream reported an error mid-stream: ${event.error.message}`));
          return 'failed';
        case 'usage':
          // In place: the caller's usage chunk shows what the ledger is charged.
          event.usage = trustedUsage(event.usage, () => ({ inputTokens: options.estimateInputTokens(), outputTokens: estimateTokens(forwardedCharacters) }));
          record.usage = event.usage;
          break;
        case 'finish':
          finished = true;
          context.finishSeen();
          break;
        default:
      }
      forwardedCharacters += outputCharactersOf(event);
      into.push(event);
    }
    return 'open';
  };

  try {
    for (const event of ready.held) {
      if (event.type === 'usage') record.usage = event.usage;
      if (event.type === 'finish') {
        finished = true;
        context.finishSeen();
      }
    }
    const first = ready.held;
    if (forwardable(ready.remainder, first) === 'failed') {
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
        yield [interrupted(`the upstream stream failed after it started: ${failure.message}`, failure.kind === 'internal_error' ? 'internal_error' : 'stream_interrupted')];
        return;
      }
      if (next.done) {
        readToEnd = true;
        break;
      }
      if (!finished) context.timer.touch();
      const out: StreamEvent[] = [];
      const state = forwardable(next.value, out);
      if (out.length > 0) yield out;
      if (state === 'failed') return;
    }
    if (!finished) yield [interrupted('the upstream stream ended before its finish')];
  } finally {
    record.latencyMs = Date.now() - context.startedAtMs;
    if (!finished && record.kind === 'ok') record.kind = context.callerGone ? 'cancelled' : 'stream_interrupted';
    // A stream that died may hold only an early, partial usage (Anthropic's message_start).
    if (!finished || record.usage === undefined) {
      record.usage = estimatedUsage(record.usage, forwardedCharacters, options.estimateInputTokens);
    }
    context.release(readToEnd);
    if (!readToEnd) void batches.return?.();
  }
}
