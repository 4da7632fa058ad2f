import type { UpstreamDialect } from '../providers/spec.js';

export interface MockAttempt {
  /** 1-based, in arrival order; restarts at 1 after `reset()`. */
  n: number;
  atMs: number;
  dialect: UpstreamDialect;
  /** Set where the dialect is served from elsewhere than its own provider: `vertex` for Claude and Gemini on Vertex AI. */
  home?: 'vertex';
  path: string;
  /** The full model string as sent (decoded from the path for Gemini, Bedrock and Vertex), directives included. */
  model: string;
  /** The model before `?`. */
  name: string;
  stream: boolean;
  /** Model-string directives merged with (and overridden by) the `x-mock` header's. */
  directives: Record<string, string>;
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /**
   * What the mock did, set when it acted in full (answer written, connection cut, stall begun):
   * `ok`, `status <N>`, `reset`, `silence`, `cut`, `stall`, `inband_error`, `invalid_request`
   * (bad body), `bad_directive`, or `client_closed` when the client left before that. Undefined
   * while a delayed or paced answer is still going out.
   */
  outcome?: string;
}

/**
 * The attempts the mock has seen, numbered in arrival order. At least `maxAttempts` of the latest
 * are kept; older ones are dropped in batches, so a benchmark run cannot exhaust memory.
 */
export class MockAttempts {
  readonly list: MockAttempt[] = [];
  readonly #maxAttempts: number;
  readonly #log: boolean;
  #count = 0;

  constructor(options: { maxAttempts: number; log: boolean }) {
    this.#maxAttempts = options.maxAttempts;
    this.#log = options.log;
  }

  /** Records an attempt that just arrived, giving it the next number. */
  add(attempt: Omit<MockAttempt, 'n'>): MockAttempt {
    const numbered: MockAttempt = { n: ++this.#count, ...attempt };
    this.list.push(numbered);
    if (this.list.length >= this.#maxAttempts * 2) this.list.splice(0, this.list.length - this.#maxAttempts);
    return numbered;
  }

  /** What the mock did with the attempt (see `MockAttempt.outcome`); one line on stderr when logging. */
  settle(attempt: MockAttempt, outcome: string): void {
    attempt.outcome = outcome;
    if (this.#log) {
      const { n, dialect, path, model, stream } = attempt;
      process.stderr.write(`mock #${n} ${dialect} ${path} ${model} stream=${stream} -> ${outcome}\n`);
    }
  }

  /** Forgets every attempt; numbering starts at 1 again. */
  clear(): void {
    this.list.length = 0;
    this.#count = 0;
  }
}
