import { LRUCache } from 'lru-cache';
import { Representations } from './compression.js';

/**
 * What a kept answer holds besides its body and key: the two strings' headers, the ETag, the
 * Representations object and the LRU's slot, measured on a heap after GC (BENCHMARKS.md, design figures: cache
 * entry): counting less let the cache hold half again its bound.
 */
const ENTRY_BYTES = 280;

/** Bits of the admission filter: 2^20 (128 KiB), reset when half of them are set. */
const FILTER_BITS = 1 << 20;

/**
 * Serialized GET answers, kept by (route, parameters, data version) and bounded in bytes. An
 * answer is a pure function of those, so a stored body is exactly what executing again would
 * give; a new data version (a new hour, a sync publish, a weather write) simply stops matching
 * the old keys, which age out. Only successful answers are stored, and only after the key check
 * and the usage count, which the dispatcher does before any route runs.
 *
 * An answer is stored the second time its key is asked for, not the first (a "doorkeeper"
 * admission filter: one bit per key hash). Keeping every one-off answer cost more than computing
 * it (the retained strings are copied by every young-generation collection) (BENCHMARKS.md, design figures: cache
 * admission); answers asked twice or more are the ones worth keeping.
 */
export class ResponseCache {
  private readonly lru: LRUCache<string, Representations> | null;
  private readonly seen = new Uint32Array(FILTER_BITS / 32);
  private seenCount = 0;
  /** Lookups since start, for /metrics. */
  readonly stats = { hits: 0, misses: 0, stored: 0 };

  constructor(maxBytes: number) {
    this.lru = maxBytes > 0 ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (v, k) => v.body.length + v.encodedBytes + k.length + ENTRY_BYTES }) : null;
  }

  get(key: string): Representations | undefined {
    const answer = this.lru?.get(key);
    if (answer) this.stats.hits++;
    else this.stats.misses++;
    return answer;
  }

  /**
   * The answer with its ETags, stored when its key has been asked for before. Its compressed
   * representations are made when first asked for and kept with it (counted in its size then).
   */
  put(key: string, body: string): Representations {
    const kept = this.lru !== null && this.admit(key);
    const answer = new Representations(body, kept);
    if (kept) {
      this.lru!.set(key, answer);
      this.stats.stored++;
    }
    return answer;
  }

  /** Counts what a kept answer's new representation holds (the LRU sizes an entry when it is set). */
  resized(key: string, answer: Representations): void {
    if (this.lru?.peek(key) === answer) this.lru.set(key, answer);
  }

  private admit(key: string): boolean {
    const h = fnv1a(key) & (FILTER_BITS - 1);
    const word = h >>> 5;
    const bit = 1 << (h & 31);
    if (this.seen[word]! & bit) return true;
    this.seen[word] = this.seen[word]! | bit;
    if (++this.seenCount > FILTER_BITS / 2) {
      this.seen.fill(0);
      this.seenCount = 0;
    }
    return false;
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }

  /** Bytes held, as the size calculation counts them. */
  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
