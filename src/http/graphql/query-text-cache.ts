/**
 * A cache keyed by GraphQL query text, bounded by its number of entries and by the total length of its keys, least
 * recently used first out.
 *
 * Why the length: what a cached document holds grows with its text. Parsed, validated and compiled by graphql-jit,
 * a 2,600-character query of twenty aliased series holds about 270 KB of heap, about a hundred bytes per character.
 * A count alone let an attacker who sends a new text every second (a literal timestamp) fill a thousand entries
 * with such documents, 270 MB the platform never gave back (issue 32's hostile soak). Clients that repeat their
 * operations keep them: each hit moves its entry to the back of the line.
 */
export class QueryTextCache<V> {
  private readonly entries = new Map<string, V>();
  private keyChars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxKeyChars: number,
  ) {}

  /** The total length of the cached keys (what bounds the cache's memory). */
  get cachedChars(): number {
    return this.keyChars;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    // A key longer than the whole budget is not kept: it would evict everything for one entry.
    if (key.length > this.maxKeyChars) return;
    if (this.entries.delete(key)) this.keyChars -= key.length;
    while (this.entries.size > 0 && (this.entries.size >= this.maxEntries || this.keyChars + key.length > this.maxKeyChars)) {
      const oldest = this.entries.keys().next().value!;
      this.entries.delete(oldest);
      this.keyChars -= oldest.length;
    }
    this.entries.set(key, value);
    this.keyChars += key.length;
  }
}
