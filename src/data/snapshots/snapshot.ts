import { snowReport, type LiftStatus, type Snowfall, type SnowReport } from '../../domain/conditions.js';
import { liftTypeFromName } from '../../domain/inventory.js';
import type { LiftFacts, ResortFacts, TrailFacts } from '../../domain/resort.js';
import type { DailyWeather } from '../../domain/weather/daily.js';
import { intern } from '../../lib/intern.js';
import { localHour } from '../../domain/local-time.js';
import type { ZoneOffsets } from '../../domain/zone-offsets.js';
import { LiftColumns, TrailColumns, type ServedLift } from './inventory-columns.js';

export interface SnapshotDay extends DailyWeather {
  source: string;
  /** When the provider's answer behind the day was fetched (ISO 8601, UTC). */
  syncedAt: string;
}

/** A report's `syncedAt` when no weather was ever stored for the resort (its report is empty). */
export const NEVER_SYNCED = '1970-01-01T00:00:00.000Z';

export type { ServedLift, ServedTrail } from './inventory-columns.js';

/** A lift a live feed reported by name and status only. */
export interface LiveLift {
  ordinal: number;
  name: string;
  status: LiftStatus;
  source: string;
}

/**
 * Everything about a resort at one moment: its report, the day's weather and each trail's and
 * lift's state. Pure data, built by a pure function: every view of a resort (REST or GraphQL) is
 * derived from one of these, and each derived view is computed once per snapshot (`memo`).
 */
export interface ResortSnapshot<R extends ResortFacts = ResortFacts> {
  resort: R;
  /** The resort's local date at `asOf`. */
  today: string;
  /** The instant the report describes: the start of the current hour. */
  asOf: Date;
  /** `asOf` in the resort's time zone, ISO 8601 with its offset. */
  updatedAt: string;
  /** Last 7 days and the forecast days, oldest first. */
  days: SnapshotDay[];
  source: string;
  /** When the data behind the report was fetched: today's row's, else the newest day's. */
  syncedAt: string;
  report: SnowReport;
  /** Each trail's facts and state, as columns (`trails.all()` makes the objects). */
  trails: TrailColumns;
  lifts: LiftColumns;
  /** Derived views, by name and units, filled on first use. */
  memo: Map<string, unknown>;
}

export interface SnapshotInputs<R extends ResortFacts> {
  resort: R;
  days: SnapshotDay[];
  trails: TrailFacts[];
  lifts: LiftFacts[];
  live: LiveLift[];
  /** The last measurable snowfall before `days` (snowReport's `earlierSnowfall`). */
  earlierSnowfall?: Snowfall | null;
  /** The start of the current hour; the resort's local date and hour follow from its time zone. */
  asOf: Date;
  /** The offsets of the resort's time zone, where the database has them. */
  offsets?: ZoneOffsets;
}

export function buildSnapshot<R extends ResortFacts>({
  resort,
  days,
  earlierSnowfall,
  trails,
  lifts,
  live,
  asOf,
  offsets,
}: SnapshotInputs<R>): ResortSnapshot<R> {
  const local = localHour(asOf, resort.timezone, offsets);
  const today = local.date;
  const { report, trailStates, liftStates } = snowReport(resort, days, trails, lifts, local, earlierSnowfall ?? null);
  // Live lift status, where a feed gives it, replaces the inventory's lifts and is what the report counts.
  const served: ServedLift[] =
    live.length > 0
      ? live.map((x) => ({
          id: `${resort.id}:live${x.ordinal}`,
          resortId: resort.id,
          name: x.name,
          type: liftTypeFromName(x.name),
          seats: null,
          capacityPerHour: null,
          source: x.source as 'liftie',
          status: x.status,
        }))
      : lifts.map((l, j) => ({
          id: l.id,
          resortId: resort.id,
          name: intern(l.name),
          type: l.type,
          seats: l.seats,
          capacityPerHour: l.capacityPerHour,
          source: l.source,
          status: liftStates[j]!,
        }));
  return {
    resort,
    today,
    asOf,
    updatedAt: local.iso,
    days,
    source: days.find((x) => x.date === today)?.source ?? 'none',
    syncedAt: syncedAtOf(days, today),
    report: { ...report, openLifts: served.filter((x) => x.status === 'OPEN').length, totalLifts: served.length },
    trails: TrailColumns.of(
      resort.id,
      trails.map((t, j) => ({
        id: t.id,
        resortId: resort.id,
        name: intern(t.name),
        difficulty: t.difficulty,
        rating: intern(t.rating),
        lengthM: t.lengthM,
        source: t.source,
        status: trailStates[j]!.status,
        grooming: trailStates[j]!.grooming,
      })),
    ),
    lifts: LiftColumns.of(resort.id, served),
    memo: new Map(),
  };
}

function syncedAtOf(days: readonly SnapshotDay[], today: string): string {
  let newest = NEVER_SYNCED;
  for (const d of days) {
    if (d.date === today) return d.syncedAt;
    if (d.syncedAt > newest) newest = d.syncedAt;
  }
  return newest;
}

/** A derived view of a snapshot, computed once and kept with it. */
export function memo<T>(s: ResortSnapshot, key: string, compute: () => T): T {
  let v = s.memo.get(key) as T | undefined;
  if (v === undefined) {
    v = compute();
    s.memo.set(key, v);
  }
  return v;
}

/** The start of the hour of `now`: reports describe whole hours, so answers can be kept for one. */
export function hourOf(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
}
