/**
 * Keeps a metric label's values bounded when they come from data rather than config (key names:
 * admins can create keys without limit). The first `max` distinct values keep their own series;
 * later ones share `(other)`.
 */
export class BoundedLabels {
  readonly #seen = new Set<string>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  label(value: string): string {
    if (this.#seen.has(value)) return value;
    if (this.#seen.size >= this.#max) return '(other)';
    this.#seen.add(value);
    return value;
  }
}
