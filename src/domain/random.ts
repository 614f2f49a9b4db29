/**
 * Seeded randomness. Everything "random" in the product (generated inventory, simulated weather)
 * is a pure function of a string seed, so the same inputs give the same answers on every machine.
 */

/** 32-bit FNV-1a hash of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A uniform number in [0, 1) fixed by the seed. */
export function unitFromSeed(seed: string): number {
  return mulberry32(hash32(seed))();
}

/** mulberry32: a small, fast PRNG with good enough statistics for simulation. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Rng {
  next(): number;
  normal(mean?: number, sd?: number): number;
  exponential(mean: number): number;
  pick<T>(items: readonly T[]): T;
  int(min: number, max: number): number;
}

export function createRng(seed: string): Rng {
  const next = mulberry32(hash32(seed));
  return {
    next,
    normal(mean = 0, sd = 1) {
      // Box–Muller; 1 - next() keeps the log away from zero.
      const u = 1 - next();
      const v = next();
      return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    exponential(mean) {
      return -mean * Math.log(1 - next());
    },
    pick(items) {
      return items[Math.floor(next() * items.length)]!;
    },
    int(min, max) {
      return min + Math.floor(next() * (max - min + 1));
    },
  };
}
