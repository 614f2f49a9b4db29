/**
 * A memo of a pure function's answers that a caller with endless new keys cannot grow without
 * bound: it holds at most `max` entries, and the one past that starts it afresh (cheaper than
 * keeping an order; the keys worth keeping are asked again at once and come back).
 */
export class BoundedMemo<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.max && !this.entries.has(key)) this.entries.clear();
    this.entries.set(key, value);
  }
}
