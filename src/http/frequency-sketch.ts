/**
 * How often each key was asked for lately, estimated in a fixed amount of memory (TinyLFU's
 * count-min sketch): four small counters per key, in four rows of one byte array; a key's
 * frequency is the least of its four, so collisions can only make it look more frequent. The
 * counters stop at 15, and all are halved after `sample` increments, so what was asked often long
 * ago counts for less than what is asked now.
 */
export class FrequencySketch {
  static readonly MAX = 15;
  private readonly counters: Uint8Array;
  private readonly mask: number;
  private increments = 0;

  /** `width`: counters per row (a power of two); `sample`: increments between two halvings. */
  constructor(
    private readonly width: number,
    private readonly sample: number,
  ) {
    if (width & (width - 1)) throw new RangeError('width must be a power of two');
    this.counters = new Uint8Array(4 * width);
    this.mask = width - 1;
  }

  /** Counts one ask for the key of hash `h`, and gives its frequency now (this ask included). */
  increment(h: number): number {
    let least = FrequencySketch.MAX;
    const step = second(h);
    for (let row = 0, i = h; row < 4; row++, i += step) {
      const at = row * this.width + (i & this.mask);
      const c = this.counters[at]!;
      if (c < FrequencySketch.MAX) this.counters[at] = c + 1;
      least = Math.min(least, c < FrequencySketch.MAX ? c + 1 : c);
    }
    if (++this.increments >= this.sample) this.halve();
    return least;
  }

  /** The key of hash `h`'s frequency. */
  frequency(h: number): number {
    let least = FrequencySketch.MAX;
    const step = second(h);
    for (let row = 0, i = h; row < 4; row++, i += step) least = Math.min(least, this.counters[row * this.width + (i & this.mask)]!);
    return least;
  }

  private halve(): void {
    this.increments = 0;
    for (let i = 0; i < this.counters.length; i++) this.counters[i]! >>>= 1;
  }
}

/** A second hash from the first (odd, so the rows' positions differ): double hashing. */
function second(h: number): number {
  return (Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 7) | 1;
}

/** FNV-1a over a string's UTF-16 code units. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
