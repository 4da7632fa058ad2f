import type { AttemptTimeouts, CommitPolicy } from '../config/schema.js';
import type { ChatRequest, UpstreamFailure, StreamEvent } from '../providers/spec.js';
import type { AttemptContext } from './attempt-context.js';
import { contentPredicate } from './content-predicate.js';
import { EMPTY_ANSWER, finishedEmpty } from './empty-answer.js';
import { StreamReading } from './stream-reading.js';
import { timerDelayMs } from '../core/timer-delay.js';

/** An upstream stream as the engine reads it: one batch of events per network read. */
export type EventBatches = AsyncIterator<StreamEvent[], void, undefined>;

export interface CommitReady {
  /** Everything read and checked so far, to be sent first, in order. */
  held: StreamEvent[];
  /** The unchecked rest of the batch in which the commit point fell: forwarded next, as committed events. */
  remainder: StreamEvent[];
  /** The stream as read so far (output characters, finish), read on by the forwarder. */
  reading: StreamReading;
  /** A read already under way when a hold window closed; the forwarder adopts it. */
  pendingNext?: Promise<IteratorResult<StreamEvent[], void>>;
  /** The upstream stream already ended (after its finish): nothing more to read. */
  ended: boolean;
}

/**
 * Reads an upstream stream until the route's commit policy lets output go to the caller:
 * `first_token` — the first content event (a finish with none is an empty answer); `{hold_ms}` — that
 * plus `hold_ms` more, or the end; `complete` — the end. Any failure before that point is
 * returned as a UpstreamFailure, and nothing has reached the caller: the attempt loop moves on.
 */
export async function readToCommitPoint(
  batches: EventBatches,
  context: AttemptContext,
  options: {
    commit: CommitPolicy;
    timeouts: AttemptTimeouts;
    estimateInputTokens: () => number;
    /** Which reasoning the caller sees: only that is content. */
    shownReasoning: ChatRequest['shownReasoning'];
  },
): Promise<CommitReady | UpstreamFailure> {
  const held: StreamEvent[] = [];
  const reading = new StreamReading(context, options.estimateInputTokens);
  const isContent = contentPredicate(options.shownReasoning);
  let sawContent = false;
  // Hosted tool calls and encrypted reasoning pass through whole: not content to commit on, but not nothing either.
  let sawOutputItem = false;
  const holdMs = typeof options.commit === 'object' ? options.commit.hold_ms : undefined;
  let holdUntilMs: number | undefined;
  let pendingNext: Promise<IteratorResult<StreamEvent[], void>> | undefined;
  try {
    for (;;) {
      let next: IteratorResult<StreamEvent[], void>;
      if (holdUntilMs === undefined) {
        next = await batches.next();
      } else {
        pendingNext ??= batches.next();
        const settled = await settledWithin(pendingNext, holdUntilMs - Date.now());
        if (settled === undefined) return { held, remainder: [], reading, pendingNext, ended: false };
        next = settled;
        pendingNext = undefined;
      }
      if (next.done) {
        if (reading.finished) return { held, remainder: [], reading, ended: true };
        return failed(context, reading, { kind: 'server_error', message: sawContent ? 'the upstream stream was cut before it finished' : 'the upstream stream ended before any content' });
      }
      const batch = next.value;
      for (let position = 0; position < batch.length; position++) {
        const event = batch[position]!;
        if (event.type === 'provider-error') return failed(context, reading, event.error);
        if (event.type === 'output-item') sawOutputItem = true;
        else if (event.type === 'finish' && !sawContent) {
          if (event.reason === 'content_filter') return { kind: 'moderation', code: 'content_filter', message: 'the provider refused to answer (content filter)' };
          if (!sawOutputItem && finishedEmpty(event.reason)) return failed(context, reading, EMPTY_ANSWER);
        }
        if (!reading.read(event)) continue;
        held.push(event);
        const content = isContent(event);
        sawContent ||= content;
        if ((content || event.type === 'finish') && context.firstToken()) {
          if (!reading.finished) {
            context.timer.arm('idle', options.timeouts.idle_ms);
            context.heard(options.timeouts.idle_ms);
          }
          if (options.commit === 'first_token') return { held, remainder: batch.slice(position + 1), reading, ended: false };
          if (holdMs !== undefined) holdUntilMs = Date.now() + holdMs;
        }
      }
      // Held back until the commit point: a failure after a long silence here still fails over.
      if (context.record.firstTokenMs !== undefined && !reading.finished) context.heard(options.timeouts.idle_ms);
    }
  } catch (error) {
    if (context.endedAfterFinish) return { held, remainder: [], reading, ended: true };
    return failed(context, reading, context.classify(error));
  }
}

/** A stream that dies before its commit point was still generated, and billed: once it produced anything, its usage is estimated. */
function failed(context: AttemptContext, reading: StreamReading, error: UpstreamFailure): UpstreamFailure {
  if (reading.outputCharacters > 0 || context.record.usage !== undefined) reading.estimateUsage();
  return error;
}

/** The read's result if it settles within `ms`, else undefined (the read stays pending for later). */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), timerDelayMs(ms));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
