import { GROOMING_STATUSES, LIFT_STATUSES, TRAIL_STATUSES, type LiftStatus, type TrailState } from '../../domain/conditions.js';
import { DIFFICULTIES, LIFT_TYPES, type InventorySource, type LiftFacts, type TrailFacts } from '../../domain/resort.js';

/**
 * A trail and a lift as served: their facts and state, without the thresholds that decided the
 * state. A snapshot holds them as columns (below) and makes these when asked.
 */
export type ServedTrail = Omit<TrailFacts, 'openThreshold' | 'groomThreshold'> & TrailState;
export type ServedLift = Omit<LiftFacts, 'openThreshold'> & { status: LiftStatus };

const SOURCES: readonly InventorySource[] = ['generated', 'openskimap', 'liftie'];

/** A value's position in its (short) list, to be held as a byte. */
function codeOf<T>(list: readonly T[], value: T): number {
  const i = list.indexOf(value);
  if (i < 0) throw new Error(`not one of ${list.join(', ')}: ${String(value)}`);
  return i;
}

/**
 * Ids as given, except those that are the resort's prefix and the position counted from 1 (every
 * trail and lift of a generated inventory: `vail:t12`, `vail:l3`), which are made again when asked
 * for rather than held: tens of thousands of strings (BENCHMARKS.md, design figures: snapshots). Undefined when all are.
 */
function ownIds(ids: readonly string[], prefix: string): (string | undefined)[] | undefined {
  let own: (string | undefined)[] | undefined;
  ids.forEach((id, i) => {
    if (id !== prefix + (i + 1)) (own ??= new Array<string | undefined>(ids.length).fill(undefined))[i] = id;
  });
  return own;
}

/**
 * A resort's trails as a snapshot keeps them: one array per field, not one object per trail. The
 * store holds every resort's snapshot, and as objects of nine fields the trails were its largest
 * part (BENCHMARKS.md, design figures: snapshots); here the few-valued fields are bytes and the
 * resort's id is held once. A request that lists trails gets objects made for it (`all()`).
 */
export class TrailColumns {
  private constructor(
    private readonly resortId: string,
    readonly length: number,
    private readonly ids: readonly (string | undefined)[] | undefined,
    private readonly names: readonly string[],
    private readonly ratings: readonly string[],
    private readonly lengths: readonly number[],
    /** Difficulty, source, status and grooming of each trail, as positions in their lists. */
    private readonly codes: Uint8Array,
  ) {}

  static of(resortId: string, trails: readonly ServedTrail[]): TrailColumns {
    const codes = new Uint8Array(trails.length * 4);
    trails.forEach((t, i) => {
      codes[i * 4] = codeOf(DIFFICULTIES, t.difficulty);
      codes[i * 4 + 1] = codeOf(SOURCES, t.source);
      codes[i * 4 + 2] = codeOf(TRAIL_STATUSES, t.status);
      codes[i * 4 + 3] = codeOf(GROOMING_STATUSES, t.grooming);
    });
    return new TrailColumns(
      resortId,
      trails.length,
      ownIds(
        trails.map((t) => t.id),
        `${resortId}:t`,
      ),
      trails.map((t) => t.name),
      trails.map((t) => t.rating),
      trails.map((t) => t.lengthM),
      codes,
    );
  }

  /** Every trail, in inventory order, as new objects of one shape. */
  all(): ServedTrail[] {
    const out = new Array<ServedTrail>(this.length);
    const c = this.codes;
    for (let i = 0; i < out.length; i++) {
      out[i] = {
        id: this.ids?.[i] ?? `${this.resortId}:t${i + 1}`,
        resortId: this.resortId,
        name: this.names[i]!,
        difficulty: DIFFICULTIES[c[i * 4]!]!,
        rating: this.ratings[i]!,
        lengthM: this.lengths[i]!,
        source: SOURCES[c[i * 4 + 1]!]!,
        status: TRAIL_STATUSES[c[i * 4 + 2]!]!,
        grooming: GROOMING_STATUSES[c[i * 4 + 3]!]!,
      };
    }
    return out;
  }
}

/** A resort's lifts, held as columns for the same reason as its trails (~4,900 of them). */
export class LiftColumns {
  private constructor(
    private readonly resortId: string,
    readonly length: number,
    private readonly ids: readonly (string | undefined)[] | undefined,
    private readonly names: readonly string[],
    private readonly seats: readonly (number | null)[],
    private readonly capacities: readonly (number | null)[],
    /** Type, source and status of each lift, as positions in their lists. */
    private readonly codes: Uint8Array,
  ) {}

  static of(resortId: string, lifts: readonly ServedLift[]): LiftColumns {
    const codes = new Uint8Array(lifts.length * 3);
    lifts.forEach((l, i) => {
      codes[i * 3] = codeOf(LIFT_TYPES, l.type);
      codes[i * 3 + 1] = codeOf(SOURCES, l.source);
      codes[i * 3 + 2] = codeOf(LIFT_STATUSES, l.status);
    });
    return new LiftColumns(
      resortId,
      lifts.length,
      ownIds(
        lifts.map((l) => l.id),
        `${resortId}:l`,
      ),
      lifts.map((l) => l.name),
      lifts.map((l) => l.seats),
      lifts.map((l) => l.capacityPerHour),
      codes,
    );
  }

  /** Every lift, in inventory (or feed) order, as new objects of one shape. */
  all(): ServedLift[] {
    const out = new Array<ServedLift>(this.length);
    const c = this.codes;
    for (let i = 0; i < out.length; i++) {
      out[i] = {
        id: this.ids?.[i] ?? `${this.resortId}:l${i + 1}`,
        resortId: this.resortId,
        name: this.names[i]!,
        type: LIFT_TYPES[c[i * 3]!]!,
        seats: this.seats[i]!,
        capacityPerHour: this.capacities[i]!,
        source: SOURCES[c[i * 3 + 1]!]!,
        status: LIFT_STATUSES[c[i * 3 + 2]!]!,
      };
    }
    return out;
  }
}
