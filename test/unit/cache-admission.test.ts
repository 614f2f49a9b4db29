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
