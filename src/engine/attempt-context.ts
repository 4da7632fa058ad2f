import type { ResponseHeaders, UpstreamFailure } from '../providers/spec.js';
import type { AttemptRecord } from '../core/attempt-record.js';
import type { FailureKind } from '../core/failure-kind.js';
import type { Usage } from '../core/usage.js';
import { estimatedUsage } from '../metering/estimate-tokens.js';
import { AttemptTimer } from './attempt-timer.js';
import { Cancellation } from '../core/cancellation.js';
import { classifyTransportError } from './classify-transport-error.js';
import { silentFailure, type Silence } from './silent-failure.js';

/** How long an upstream may keep a stream open after its finish before we end it ourselves. */
const AFTER_FINISH_GRACE_MS = 1_000;

/** The abort reason for letting go of an attempt's upstream once we are done with it (made once). */
const ATTEMPT_RELEASED = new Error('attempt released');

/** What hears of one attempt: its upstream's response headers, and its final record. */
export interface AttemptObserver {
  /** Rate-limit headers come on successes too. */
  observeHeaders(headers: ResponseHeaders): void;
  /** Once the attempt has really ended (a stream: when it ends). */
  settle(record: AttemptRecord): void;
}

/** How one attempt ended: its answer, or its failure; its record either way, and the attempt itself. */
export type AttemptOutcome<Answer> =
  | { ok: true; record: Readonly<AttemptRecord>; answer: Answer; attempt: AttemptContext }
  | { ok: false; record: Readonly<AttemptRecord>; error: UpstreamFailure; attempt: AttemptContext };

/**
 * The per-attempt plumbing: one cancellation (the caller going away, a phase timeout or the
 * deadline abort it), its timers, and the record — which only this writes, each fact as the
 * attempt learns it (the sending, the status, the first token, usage, the commit, the end), so
 * the rest of the engine reads it and says what happened.
 */
export class AttemptContext {
  readonly #record: AttemptRecord;
  readonly cancellation = new Cancellation();
  readonly timer: AttemptTimer;
  readonly startedAtMs: number;
  readonly #caller: Cancellation;
  readonly #stopFollowingCaller: () => void;
  readonly #observer: AttemptObserver | undefined;
  #settled = false;
  #finishSeen = false;
  #endedAfterFinish = false;
  /** After content: when the upstream last sent an event, and the idle timeout it streams under. */
  #lastHeardAtMs = 0;
  #idleTimeoutMs = 0;

  constructor(
    record: AttemptRecord,
    options: { caller: Cancellation; startedAtMs: number; deadlineAtMs: number; observer?: AttemptObserver | undefined },
  ) {
    this.#record = record;
    this.startedAtMs = options.startedAtMs;
    this.#observer = options.observer;
    this.#caller = options.caller;
    this.#stopFollowingCaller = this.#caller.onAbort((reason) => this.cancellation.abort(reason));
    if (this.#caller.aborted) this.cancellation.abort(this.#caller.reason);
    this.timer = new AttemptTimer(this.cancellation, options.deadlineAtMs - options.startedAtMs);
  }

  get record(): Readonly<AttemptRecord> {
    return this.#record;
  }

  get callerGone(): boolean {
    return this.#caller.aborted;
  }

  /**
   * Stops the timers; aborts the upstream unless its response was read to the end. Called once,
   * when the attempt has really ended (for a stream: when the stream ends), which is when its
   * outcome is final and the observer hears of it.
   */
  release(readToEnd: boolean): void {
    if (this.#settled) return;
    this.#settled = true;
    this.timer.clear();
    this.#stopFollowingCaller();
    if (!readToEnd) this.cancellation.abort(ATTEMPT_RELEASED);
    this.#observer?.settle(this.#record);
  }

  /** Ends the attempt as failed, filling the record from the error (a failure after a long silence is a timeout). */
  fail(failure: UpstreamFailure): AttemptOutcome<never> {
    const error = silentFailure(failure, this.#silence());
    const record = this.#record;
    record.kind = error.kind;
    record.httpStatus = error.status ?? record.httpStatus;
    record.errorType = error.code ?? error.type;
    record.message = error.message;
    record.retryAfterMs = error.retryAfterMs;
    record.latencyMs = Date.now() - this.startedAtMs;
    this.release(false);
    return { ok: false, record, error, attempt: this };
  }

  /** The attempt has an answer for the caller (a stream's is committed as it is forwarded). */
  answered<Answer>(answer: Answer): AttemptOutcome<Answer> {
    return { ok: true, record: this.#record, answer, attempt: this };
  }

  /** An answer read whole: committed with its usage, and the attempt over. */
  answeredWhole<Answer>(answer: Answer, usage: Usage | undefined): AttemptOutcome<Answer> {
    const record = this.#record;
    record.latencyMs = Date.now() - this.startedAtMs;
    record.usage = usage;
    record.committed = true;
    this.release(true);
    return this.answered(answer);
  }

  /** The caller's own body went upstream (the relay). */
  relayed(): void {
    this.#record.relay = true;
  }

  /** The request reached the upstream (its last host tried): a silence counts from now. */
  sent(): void {
    this.#record.sentMs = Date.now() - this.startedAtMs;
  }

  answeredWithStatus(status: number): void {
    this.#record.httpStatus = status;
  }

  /** The first content (or a finish): true for the event that was first, when its time is taken. */
  firstToken(): boolean {
    if (this.#record.firstTokenMs !== undefined) return false;
    this.#record.firstTokenMs = Date.now() - this.startedAtMs;
    return true;
  }

  /** What the provider reported (or the gateway estimated) it generated and bills. */
  billed(usage: Usage | undefined): void {
    this.#record.usage = usage;
  }

  malformedEvent(): void {
    this.#record.malformedEvents++;
  }

  /** The stream went to the caller: from now a failure is the caller's to see. */
  committed(): void {
    this.#record.committed = true;
  }

  /** Ended otherwise than it began: cut after the commit point, the caller gone, or a race's loser. */
  endedAs(kind: FailureKind, message?: string): void {
    this.#record.kind = kind;
    if (message !== undefined) this.#record.message = message;
  }

  /** A race's loser, dropped unread after its commit point (another attempt's answer went out). */
  answeredElsewhere(message: string): void {
    this.endedAs('cancelled', message);
    this.#record.committed = false;
  }

  /** A committed stream has ended: a stream without its finish did not end well. */
  streamEnded(finished: boolean): void {
    const record = this.#record;
    record.latencyMs = Date.now() - this.startedAtMs;
    if (!finished && record.kind === 'ok') record.kind = this.callerGone ? 'cancelled' : 'stream_interrupted';
  }

  /** A cancelled attempt the provider had been sent is billed at least its input, estimated. */
  billCancelledInput(estimateInputTokens: () => number): void {
    const record = this.#record;
    if (record.kind === 'cancelled' && record.sentMs !== undefined && record.usage === undefined) record.usage = estimatedUsage(undefined, 0, estimateInputTokens);
  }

  /** What a thrown send/read error means, judged by which of our cancellations fired. */
  classify(error: unknown): UpstreamFailure {
    return classifyTransportError(error, { caller: this.#caller, attempt: this.cancellation });
  }

  /**
   * The upstream sent events after its first content (one upstream read): the idle timer starts
   * again, and a failure after a long silence from now on is judged against `idleTimeoutMs`.
   */
  heard(idleTimeoutMs: number): void {
    this.#lastHeardAtMs = Date.now();
    this.#idleTimeoutMs = idleTimeoutMs;
    this.timer.touch();
  }

  /** How long the target has been silent: since the request was sent until content came, since its last event after that. */
  #silence(): Silence | undefined {
    const { sentMs, firstTokenMs, firstTokenTimeoutMs } = this.#record;
    if (firstTokenMs !== undefined) return this.#lastHeardAtMs === 0 ? undefined : { silentMs: Date.now() - this.#lastHeardAtMs, timeoutMs: this.#idleTimeoutMs, afterContent: true };
    if (sentMs === undefined || firstTokenTimeoutMs === undefined) return undefined;
    return { silentMs: Date.now() - this.startedAtMs - sentMs, timeoutMs: firstTokenTimeoutMs, afterContent: false };
  }

  /**
   * The upstream sent its finish: the stream is complete whether or not `[DONE]` follows. It gets
   * a moment to send usage and close; then the gateway ends the read itself (`endedAfterFinish`).
   */
  finishSeen(): void {
    if (this.#finishSeen) return;
    this.#finishSeen = true;
    this.timer.graceThen(AFTER_FINISH_GRACE_MS, () => {
      this.#endedAfterFinish = true;
      this.cancellation.abort(ATTEMPT_RELEASED);
    });
  }

  /** The read ended because the finish's grace ran out: a complete stream, not a failure. */
  get endedAfterFinish(): boolean {
    return this.#endedAfterFinish;
  }
}
