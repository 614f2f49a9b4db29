import { ResponseCache } from '../src/http/response-cache.js';
import { loadConfig } from '../src/lib/config.js';

/**
 * The response cache's own work on a miss, in this process: a lookup and, after the answer is
 * made, the offer to store it (counted in the frequency sketch, declined by admission) on a full
 * cache of the default size (RESPONSE_CACHE_MB unset), against the same lookups and answers on a cache of size 0 (which
 * only builds the answer's representation, its ETag, as every answer needs). Median of `rounds`
 * rounds of `misses` lookups of keys asked once, as a bulk client's are; microseconds a miss.
 */
export function cacheMissCost(answers: readonly string[], rounds = 7, misses = 50_000): { bookkeepingUs: number; spreadUs: [number, number] } {
  const bytes = loadConfig({}).responseCacheBytes;
  const full = new ResponseCache(bytes);
  // Filled as a popular app fills it: each answer asked twice, then kept.
  for (let i = 0; full.bytes < bytes - 4096 && i < 1_000_000; i++) {
    const key = `/api/zip/:zip\n{"zip":"k${i}"}\n\n\nv`;
    full.get(key);
    full.get(key);
    full.put(key, answers[i % answers.length]!);
  }
  const none = new ResponseCache(0);
  let serial = 0;
  const run = (cache: ResponseCache): number => {
    const t0 = performance.now();
    for (let i = 0; i < misses; i++) {
      const key = `/api/zip/:zip\n{"zip":"m${serial++}"}\n\n\nv`;
      if (cache.get(key) === undefined) cache.put(key, answers[i % answers.length]!);
    }
    return ((performance.now() - t0) * 1000) / misses;
  };
  run(full);
  run(none);
  const diffs: number[] = [];
  for (let r = 0; r < rounds; r++) diffs.push(run(full) - run(none));
  diffs.sort((a, b) => a - b);
  return { bookkeepingUs: diffs[Math.floor(diffs.length / 2)]!, spreadUs: [diffs[0]!, diffs.at(-1)!] };
}
