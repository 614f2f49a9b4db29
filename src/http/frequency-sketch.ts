/** Bits of the doorkeeper: 2^20 (128 KiB). */
const DOORKEEPER_BITS = 1 << 20;
/** A counter's top. */
const COUNTER_MAX = 15;

/**
 * How often each key was asked for lately, estimated in a fixed amount of memory (TinyLFU): a
 * key's first ask sets a bit in a doorkeeper, and only later asks are counted, in a count-min
 * sketch of four small counters per key (four rows of one byte array; a key's count is the least
 * of its four, so collisions can only make it look more frequent). One-off keys, most keys of a
 * bulk client, then never crowd the counters. The counters stop at 15; after `sample` asks every
 * counter is halved and the doorkeeper emptied, so what was asked often long ago counts for less
 * than what is asked now.
 */
export class FrequencySketch {
  /** The most a frequency can be: the doorkeeper's ask and a full counter. */
  static readonly MAX = 1 + COUNTER_MAX;
  private readonly counters: Uint8Array;
  private readonly seen = new Uint32Array(DOORKEEPER_BITS / 32);
  private readonly mask: number;
  private increments = 0;

  /** `width`: counters per row (a power of two); `sample`: asks between two halvings. */
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
    if (++this.increments >= this.sample) this.halve();
    const door = doorOf(h);
    const word = this.seen[door >>> 5]!;
    const bit = 1 << (door & 31);
    if ((word & bit) === 0) {
      this.seen[door >>> 5] = word | bit;
      return 1 + this.counted(h);
    }
    let least = COUNTER_MAX;
    const step = second(h);
    for (let row = 0, i = h; row < 4; row++, i += step) {
      const at = row * this.width + (i & this.mask);
      const c = this.counters[at]!;
      if (c < COUNTER_MAX) this.counters[at] = c + 1;
      least = Math.min(least, c < COUNTER_MAX ? c + 1 : c);
    }
    return 1 + least;
  }

  /** The key of hash `h`'s frequency: its ask in the doorkeeper, if there is one, and its count. */
  frequency(h: number): number {
    const door = doorOf(h);
    return ((this.seen[door >>> 5]! >>> (door & 31)) & 1) + this.counted(h);
  }

  /** The asks counted past the doorkeeper (the least of the key's four counters). */
  private counted(h: number): number {
    let least = COUNTER_MAX;
    const step = second(h);
    for (let row = 0, i = h; row < 4; row++, i += step) least = Math.min(least, this.counters[row * this.width + (i & this.mask)]!);
    return least;
  }

  private halve(): void {
    this.increments = 0;
    for (let i = 0; i < this.counters.length; i++) this.counters[i]! >>>= 1;
    this.seen.fill(0);
  }
}

/** The doorkeeper's bit for a key: a third hash, so its collisions are not the counters'. */
function doorOf(h: number): number {
  return (Math.imul(h, 0x9e3779b1) >>> 12) & (DOORKEEPER_BITS - 1);
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
