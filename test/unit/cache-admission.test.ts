import { describe, expect, it } from 'vitest';
import { FrequencySketch, fnv1a } from '../../src/http/frequency-sketch.js';
import { ResponseCache } from '../../src/http/response-cache.js';

describe('the frequency sketch', () => {
  it('counts each ask, never below the true count, mostly exactly, and stops at its top', () => {
    const sketch = new FrequencySketch(4096, 1_000_000);
    const truth = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const key = `/api/zip/${String((i * 7919) % 1000).padStart(5, '0')}`;
      const n = Math.min(FrequencySketch.MAX, (truth.get(key) ?? 0) + 1);
      truth.set(key, n);
      expect(sketch.increment(fnv1a(key))).toBeGreaterThanOrEqual(n);
    }
    let exact = 0;
    for (const [key, n] of truth) {
      const f = sketch.frequency(fnv1a(key));
      expect(f).toBeGreaterThanOrEqual(n);
      if (f === n) exact++;
    }
    // A thousand keys over 4,096 counters a row: all four of a key's shared with others about once in 500.
    expect(exact / truth.size).toBeGreaterThan(0.98);
    const hot = fnv1a('hot');
    for (let i = 0; i < 40; i++) sketch.increment(hot);
    expect(sketch.frequency(hot)).toBe(FrequencySketch.MAX);
  });

  it('halves every count after its sample of asks, the doorkeeper emptied: old asks count for less', () => {
    const sketch = new FrequencySketch(1024, 100);
    const old = fnv1a('old');
    for (let i = 0; i < 12; i++) sketch.increment(old);
    // The first ask in the doorkeeper, eleven in the counters.
    expect(sketch.frequency(old)).toBe(12);
    for (let i = 0; i < 87; i++) sketch.increment(fnv1a(`other ${i}`));
    expect(sketch.frequency(old)).toBe(12);
    sketch.increment(fnv1a('the hundredth'));
    // Eleven counted, halved to five; the doorkeeper emptied.
    expect(sketch.frequency(old)).toBe(5);
  });

  it('a key asked for once is in the doorkeeper only: many one-off keys leave the counters empty', () => {
    const sketch = new FrequencySketch(16_384, 1_000_000);
    let once = 0;
    for (let i = 0; i < 50_000; i++) if (sketch.increment(fnv1a(`once ${i}`)) === 1) once++;
    // Three one-off keys to a counter, yet nearly all of them are seen as asked for once (those
    // that are not share a doorkeeper bit with another: about one in twenty).
    expect(once / 50_000).toBeGreaterThan(0.93);
    const twice = fnv1a('twice');
    sketch.increment(twice);
    expect(sketch.increment(twice)).toBe(2);
  });
});

/** A cache that holds about `answers` answers of `bytes` each (with their keys and bookkeeping). */
function cacheFor(answers: number, bytes = 1000) {
  return new ResponseCache(answers * (bytes + 300) + 100);
}
const body = (key: string, bytes = 1000) => key.padEnd(bytes, '.');

/** Asks as a route does: a lookup, and on a miss the answer made and offered. */
function ask(cache: ResponseCache, key: string): 'hit' | 'miss' {
  if (cache.get(key)) return 'hit';
  cache.put(key, body(key));
  return 'miss';
}

describe('admission to the response cache', () => {
  it('an answer asked for once is not kept; the second time it is', () => {
    const cache = cacheFor(10);
    expect(ask(cache, 'a')).toBe('miss');
    expect(cache.stats).toMatchObject({ stored: 0, declined: 1 });
    expect(ask(cache, 'a')).toBe('miss');
    expect(cache.stats.stored).toBe(1);
    expect(ask(cache, 'a')).toBe('hit');
  });

  it('a client cycling through more answers than fit leaves the cache as it is, and keeps hitting what it holds', () => {
    const cache = cacheFor(100);
    const keys = Array.from({ length: 1000 }, (_, i) => `zip ${i}`);
    for (let cycle = 0; cycle < 5; cycle++) for (const k of keys) ask(cache, k);
    // Filled on the second cycle, then nothing replaced: every later cycle hits what was kept.
    expect(cache.stats.stored).toBeLessThanOrEqual(110);
    expect(cache.size).toBeGreaterThanOrEqual(90);
    const hitsBefore = cache.stats.hits;
    for (const k of keys) ask(cache, k);
    expect(cache.stats.hits - hitsBefore).toBe(cache.size);
  });

  it('once full, an answer asked for more often than the least recently used one replaces it; as often, it does not', () => {
    const cache = cacheFor(3);
    for (const k of ['a', 'b', 'c']) {
      ask(cache, k);
      ask(cache, k);
    }
    expect(cache.size).toBe(3);
    // 'a' is the least recently used, asked for twice. 'd' asked twice: no more often, declined.
    ask(cache, 'd');
    ask(cache, 'd');
    expect(cache.get('d')).toBeUndefined();
    // Asked a fourth time ('d' had three asks before it against 'a''s two): kept, and 'a' goes.
    ask(cache, 'd');
    expect(cache.size).toBe(3);
    expect(cache.get('d')).toBeDefined();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('off (0 bytes): nothing kept, every lookup a miss', () => {
    const cache = new ResponseCache(0);
    for (let i = 0; i < 3; i++) expect(ask(cache, 'a')).toBe('miss');
    expect(cache.stats).toMatchObject({ hits: 0, misses: 3, stored: 0 });
  });
});

describe('the response cache’s bookkeeping', () => {
  /** What a kept answer counts against the bound: its body, its key and 280 bytes of entry. */
  const entry = (key: string, bytes: number) => bytes + key.length + 280;

  it('counts every lookup as a hit or a miss, and what it stored or declined', () => {
    const cache = cacheFor(10);
    ask(cache, 'a');
    ask(cache, 'a');
    ask(cache, 'a');
    ask(cache, 'b');
    expect(cache.stats).toEqual({ hits: 1, misses: 3, stored: 1, declined: 2 });
  });

  it('holds a kept answer at its body, key and entry bytes, and counts a compressed form once made', async () => {
    const cache = new ResponseCache(100_000);
    const key = 'big';
    const text = 'x'.repeat(5000);
    cache.get(key);
    cache.get(key);
    const answer = cache.put(key, text);
    expect(cache.bytes).toBe(entry(key, 5000));
    await answer.in('gzip', 'answer');
    expect(answer.encodedBytes).toBeGreaterThan(0);
    // Not yet told: the LRU sized the entry when it was set.
    expect(cache.bytes).toBe(entry(key, 5000));
    cache.resized(key, answer);
    expect(cache.bytes).toBe(entry(key, 5000) + answer.encodedBytes);
    // An answer the cache does not hold under that key changes nothing.
    const other = cache.put('other', text);
    await other.in('gzip', 'answer');
    cache.resized('other', other);
    cache.resized(key, other);
    expect(cache.bytes).toBe(entry(key, 5000) + answer.encodedBytes);
    expect(cache.size).toBe(1);
  });

  it('stores an answer that fits exactly without asking the one it would evict; one byte over, it asks', () => {
    const a = 'a'.repeat(100);
    const exact = new ResponseCache(2 * entry('a', 100));
    const over = new ResponseCache(2 * entry('a', 100) - 1);
    for (const cache of [exact, over]) {
      for (const k of ['a', 'b']) {
        cache.get(k);
        cache.get(k);
        cache.put(k, a);
      }
    }
    // 'b' as often asked as 'a': kept where it fits, declined where it would evict 'a'.
    expect([exact.size, exact.stats.stored]).toEqual([2, 2]);
    expect([over.size, over.stats.stored, over.stats.declined]).toEqual([1, 1, 1]);
    expect(over.get('a')).toBeDefined();
  });

  it('an answer larger than the whole cache is declined, and still answered', () => {
    const cache = new ResponseCache(500);
    cache.get('huge');
    cache.get('huge');
    const answer = cache.put('huge', 'h'.repeat(1000));
    expect(answer.body).toBe('h'.repeat(1000));
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
    expect(cache.stats).toMatchObject({ stored: 0, declined: 1 });
  });

  it('a newcomer must have been asked more often than the answer it evicts, unless both are as hot as can be told', () => {
    const cache = cacheFor(1);
    const askN = (k: string, n: number) => {
      for (let i = 0; i < n; i++) ask(cache, k);
    };
    askN('old', 3);
    expect(cache.get('old')).toBeDefined();
    // 'new' with four asks before its fifth against 'old''s four (three and the lookup above): not more often.
    askN('new', 5);
    expect(cache.get('new')).toBeUndefined();
    askN('new', 1);
    expect(cache.get('new')).toBeDefined();
    // Both at the sketch's top: the newcomer wins, so a hot answer is never locked out by another.
    askN('new', 40);
    askN('hot', 40);
    expect(cache.get('hot')).toBeDefined();
  });

  it('off (0 bytes): no size, no bytes, and an answer still made with its ETag', () => {
    const cache = new ResponseCache(0);
    const answer = cache.put('k', 'body');
    expect(answer.etag).toMatch(/^"[\w-]{27}"$/);
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
    // Nothing to admit to: neither stored nor declined.
    expect(cache.stats).toEqual({ hits: 0, misses: 0, stored: 0, declined: 0 });
    cache.resized('k', answer);
    expect(cache.bytes).toBe(0);
  });
});

describe('the frequency sketch’s edges', () => {
  it('is FNV-1a over UTF-16 code units', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });

  it('four rows of counters, each placed by its own hash: keys asked a few times are counted exactly, nearly all', () => {
    // Below the counters' top, where a collision shows: one row of 4,096 would miscount ~1 key in 5.
    const sketch = new FrequencySketch(4096, 1_000_000);
    const keys = Array.from({ length: 1000 }, (_, i) => fnv1a(`/api/zip/${i}`));
    for (let round = 0; round < 3; round++) for (const h of keys) sketch.increment(h);
    const exact = keys.filter((h) => sketch.frequency(h) === 3).length;
    expect(exact / keys.length).toBeGreaterThan(0.98);
  });

  it('wants a power of two counters a row', () => {
    expect(() => new FrequencySketch(1000, 10)).toThrow(new RangeError('width must be a power of two'));
    expect(() => new FrequencySketch(1024, 10)).not.toThrow();
  });

  it('after a halving, a key’s next ask counts from what was left: the doorkeeper’s ask and the halved count', () => {
    const sketch = new FrequencySketch(1024, 100);
    const old = fnv1a('old');
    for (let i = 0; i < 12; i++) sketch.increment(old);
    for (let i = 0; i < 88; i++) sketch.increment(fnv1a(`other ${i}`));
    // Halved on the hundredth: eleven counted become five; this ask is the doorkeeper's again.
    expect(sketch.increment(old)).toBe(6);
    expect(sketch.frequency(old)).toBe(6);
  });

  it('a counter stops at its top, so a halving leaves a hot key at half the top, not more', () => {
    const sketch = new FrequencySketch(1024, 100);
    const hot = fnv1a('hot');
    for (let i = 0; i < 60; i++) sketch.increment(hot);
    expect(sketch.frequency(hot)).toBe(FrequencySketch.MAX);
    for (let i = 0; i < 40; i++) sketch.increment(fnv1a(`other ${i}`));
    expect(sketch.frequency(hot)).toBe(7);
  });
});
