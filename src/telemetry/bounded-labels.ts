/**
 * Keeps a metric label's values bounded when they come from data rather than config (key names:
 * admins can create keys without limit; direct `connection/model` names: callers make them up).
 * The first `max` distinct values keep their own series; later ones share one `other` series.
 */
export class BoundedLabels {
  readonly #seen = new Set<string>();
  readonly #max: () => number;
  readonly #other: string;

  /** `max` is read on every new value, so a reloaded bound applies to values seen from then on. */
  constructor(max: number | (() => number), other = '(other)') {
    this.#max = typeof max === 'number' ? () => max : max;
    this.#other = other;
  }

  label(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.#max()) return this.#other;
    this.#seen.add(value);
    return value;
  }
}
