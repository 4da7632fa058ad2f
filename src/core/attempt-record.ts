import type { FailureKind } from './failure-kind.js';
import type { Usage } from './usage.js';

/** What one physical upstream attempt did; the request records (docs/operations.md) are built from these. */
export interface AttemptRecord {
  /** 1-based position in the request's attempt sequence. */
  n: number;
  connection: string;
  provider: string;
  /** The routed model (what we asked the provider for). */
  model: string;
  kind: FailureKind;
  httpStatus?: number;
  errorType?: string;
  message?: string;
  retryAfterMs?: number;
  /** Offset from the start of the request. */
  startedMs: number;
  latencyMs: number;
  /** From the attempt's start, like `firstTokenMs`: when the request was written to the upstream (the last host tried). */
  sentMs?: number;
  firstTokenMs?: number;
  /** The first-token timeout in force for the attempt: the route's number, or what `auto` made of it. */
  firstTokenTimeoutMs?: number;
  /** Where that timeout came from. */
  firstTokenSource?: FirstTokenSource;
  /** Started beside a slow attempt of the same request (a route's `hedge`); absent on every other attempt. */
  hedge?: true;
  /**
   * Sent without the earlier turns' thinking blocks, because the target refused a block signed by
   * another home of the model (docs/lifecycle.md); absent on every other attempt.
   */
  thinkingDropped?: true;
  /** Relayed: the caller's own body went upstream with the gateway's edits, the provider's answer came back as sent; absent when translated. */
  relay?: true;
  /** Whether anything of this attempt reached the caller. */
  committed: boolean;
  usage?: Usage;
  /** Upstream events skipped because they could not be parsed. */
  malformedEvents: number;
}

/**
 * Where an attempt's first-token timeout came from: the route's number (`configured`); under
 * `auto`, the recent first-token times of the deployment itself (`own`), of the same model on
 * another connection (`same_model`), of another model on the connection (`connection`) or of
 * another target of the route (`route`); with no evidence, the cold default (`cold`); twice the
 * slowest first token the deployment itself has shown lately, answered or cut, when that is longer
 * than any of those guesses (`widened`); or the maximum (a whole answer, the plan's last option, a
 * reasoning request with no reasoning evidence, anything that reaches it).
 */
export type FirstTokenSource = 'configured' | 'own' | 'same_model' | 'connection' | 'route' | 'cold' | 'widened' | 'maximum';

