/**
 * A FIFO with amortised O(1) push and shift (an array plus a head index, compacted once half of
 * it is consumed), so neither enqueue nor dropping the oldest copies the whole buffer.
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  take(count: number): T[] {
    const taken = this.items.slice(this.head, this.head + count);
    this.head += taken.length;
    this.compact();
    return taken;
  }

  /** Returns how many were dropped. */
  dropOldest(count: number): number {
    const dropped = Math.min(count, this.length);
    this.head += dropped;
    this.compact();
    return dropped;
  }

  /** Puts items back in front (a failed batch), keeping their order. */
  putBack(items: readonly T[]): void {
    this.items = [...items, ...this.items.slice(this.head)];
    this.head = 0;
  }

  private compact(): void {
    if (this.head * 2 < this.items.length) return;
    this.items = this.items.slice(this.head);
    this.head = 0;
  }
}
