/**
 * A bounded map that forgets its least recently read entry when full (parsed keys per `kid`).
 * @example const cache = new LruMap<string, KeyObject>(1000); cache.set(kid, key); cache.get(kid);
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  /** @param capacity most entries kept */
  constructor(private readonly capacity: number) {}

  /** The value for `key` (marking it recently used), or `undefined`. */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  /** Stores `value`, forgetting the oldest entry when full. */
  set(key: K, value: V): void {
    this.map.delete(key);
    if (this.map.size >= this.capacity) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
  }

  /** Forgets `key`. */
  delete(key: K): void {
    this.map.delete(key);
  }

  /** Forgets every entry whose value matches (a scan: for rare events such as a revocation). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, value] of this.map) if (matches(value)) this.map.delete(key);
  }

  /** Forgets everything. */
  clear(): void {
    this.map.clear();
  }
}
