import { LRUCache } from 'lru-cache';
import { Representations } from './compression.js';
import { FrequencySketch, fnv1a } from './frequency-sketch.js';

/**
 * What a kept answer holds besides its body and key: the two strings' headers, the ETag, the
 * Representations object and the LRU's slot, measured on a heap after GC (BENCHMARKS.md, design figures: cache
 * entry): counting less let the cache hold half again its bound.
 */
const ENTRY_BYTES = 280;

/** A kept ZIP answer's size, roughly (body, key and the entry's own bytes), to size the frequency sketch by the answers the cache holds. */
const TYPICAL_ENTRY_BYTES = 512;

/**
 * Serialized GET answers, kept by (route, parameters, data version) and bounded in bytes. An
 * answer is a pure function of those, so a stored body is exactly what executing again would
 * give; a new data version (a new hour, a sync publish, a weather write) simply stops matching
 * the old keys, which age out. Only successful answers are stored, and only after the key check
 * and the usage count, which the dispatcher does before any route runs.
 *
 * Admission by frequency (W-TinyLFU's, without its window): every lookup is counted in a
 * frequency sketch; an answer is stored only when it has been asked for before (keeping every
 * one-off answer cost more than computing it: the retained strings are copied by every
 * young-generation collection; BENCHMARKS.md, design figures: cache admission), and, once the
 * cache is full, only when it had been asked for more often than the least recently used answer
 * it would evict. A bulk client cycling through every ZIP then leaves the cache as it is instead
 * of replacing an answer on every request; a popular answer still displaces a cold one. The
 * counts are halved every ten times as many lookups as the cache holds answers, so answers of an
 * old data version give way as the new ones are asked for.
 */
export class ResponseCache {
  private readonly lru: LRUCache<string, Representations> | null;
  private readonly sketch: FrequencySketch;
  /** The last key looked up and its hash: a miss's put follows its get. */
  private lastKey = '';
  private lastHash = 0;
  /** Lookups since start, for /metrics: answers found, not found, stored, and declined by admission. */
  readonly stats = { hits: 0, misses: 0, stored: 0, declined: 0 };

  constructor(private readonly maxBytes: number) {
    this.lru = maxBytes > 0 ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (v, k) => sizeOf(k, v) }) : null;
    const answers = Math.max(1024, Math.floor(maxBytes / TYPICAL_ENTRY_BYTES));
    // About one counter per answer held in each row (at least 2^12), halved after ten times as many lookups.
    this.sketch = new FrequencySketch(Math.max(4096, 2 ** Math.ceil(Math.log2(answers))), 10 * answers);
  }

  get(key: string): Representations | undefined {
    if (this.lru === null) {
      this.stats.misses++;
      return undefined;
    }
    this.lastKey = key;
    this.lastHash = fnv1a(key);
    this.sketch.increment(this.lastHash);
    const answer = this.lru.get(key);
    if (answer) this.stats.hits++;
    else this.stats.misses++;
    return answer;
  }

  /**
   * The answer with its ETags, stored when admission lets it in. Its compressed representations
   * are made when first asked for and kept with it (counted in its size then).
   */
  put(key: string, body: string): Representations {
    const kept = this.lru !== null && this.admit(key, body);
    const answer = new Representations(body, kept);
    if (kept) {
      this.lru!.set(key, answer);
      this.stats.stored++;
    }
    return answer;
  }

  /**
   * Counts what a kept answer's new representation holds. The LRU sizes an entry when it is set,
   * and setting the same value again keeps the old size: the entry is set anew.
   */
  resized(key: string, answer: Representations): void {
    if (this.lru?.peek(key) !== answer) return;
    this.lru.delete(key);
    this.lru.set(key, answer);
  }

  private admit(key: string, body: string): boolean {
    const lru = this.lru!;
    const frequency = this.sketch.frequency(key === this.lastKey ? this.lastHash : fnv1a(key));
    // Asked for once: a one-off, most likely.
    if (frequency < 2) return this.decline();
    if (lru.calculatedSize + body.length + key.length + ENTRY_BYTES <= this.maxBytes) return true;
    const victim = lru.rkeys().next().value;
    // Empty, and still no room: larger than the whole cache.
    if (victim === undefined) return this.decline();
    // Asks before this one against the victim's (counting this one, a client cycling through more
    // answers than fit would always win against the answer it asked for a cycle ago); a counter at
    // its top is as hot as can be told, and may replace another at its top.
    const victimFrequency = this.sketch.frequency(fnv1a(victim));
    return frequency - 1 > victimFrequency || frequency === FrequencySketch.MAX || this.decline();
  }

  private decline(): false {
    this.stats.declined++;
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

/** What a kept answer counts against the cache's bound. */
function sizeOf(key: string, answer: Representations): number {
  return answer.body.length + answer.encodedBytes + key.length + ENTRY_BYTES;
}
