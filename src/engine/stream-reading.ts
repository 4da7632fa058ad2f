import { estimatedUsage, estimateTokens, outputCharactersOf } from '../metering/estimate-tokens.js';
import { trustedUsage } from '../metering/trusted-usage.js';
import type { StreamEvent } from '../providers/spec.js';
import type { AttemptContext } from './attempt-context.js';

/**
 * One upstream stream as its two readers see it — up to the commit point (read-to-commit-point.ts)
 * and past it (forward-committed.ts) — and the reading of an event they share. The first reader
 * makes it and hands it to the second, so what was counted before the commit point goes on
 * counting after it.
 */
export class StreamReading {
  /** Output characters read so far: what usage is estimated from should the stream die. */
  outputCharacters = 0;
  /** The upstream sent its finish. */
  finished = false;
  readonly #context: AttemptContext;
  readonly #estimateInputTokens: () => number;

  constructor(context: AttemptContext, estimateInputTokens: () => number) {
    this.#context = context;
    this.#estimateInputTokens = estimateInputTokens;
  }

  /**
   * Reads one event that is not a provider error (each reader answers that its own way): a
   * malformed one is counted and dropped (false); usage is trusted as far as it goes, the rest
   * estimated, in place — the caller's usage chunk shows what the ledger is charged — and kept on
   * the record; a finish is noted. Every event kept (true) counts its output characters.
   */
  read(event: StreamEvent): boolean {
    switch (event.type) {
      case 'malformed-event':
        this.#context.malformedEvent();
        return false;
      case 'usage':
        event.usage = trustedUsage(event.usage, () => ({ inputTokens: this.#estimateInputTokens(), outputTokens: estimateTokens(this.outputCharacters) }));
        this.#context.billed(event.usage);
        break;
      case 'finish':
        this.finished = true;
        this.#context.finishSeen();
        break;
      default:
    }
    this.outputCharacters += outputCharactersOf(event);
    return true;
  }

  /** A stream cut short was generated, and billed, all the same: its usage is estimated for the ledger from what was read. */
  estimateUsage(): void {
    this.#context.billed(estimatedUsage(this.#context.record.usage, this.outputCharacters, this.#estimateInputTokens));
  }
}
