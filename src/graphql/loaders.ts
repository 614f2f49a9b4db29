import DataLoader from 'dataloader';
import { addDays } from '../domain/dates.js';
import { snowReport, type LiftStatus, type SnowReport, type TrailState } from '../domain/conditions.js';
import type { LiftFacts, TrailFacts } from '../domain/resort.js';
import type { ResortRecord } from '../repositories/resorts.js';
import type { StoredDay } from '../repositories/weather.js';
import type { StateRecord, ZipRecord } from '../repositories/zips.js';
import type { LiveLiftRow } from '../repositories/inventory.js';
import { liftTypeFromName } from '../domain/inventory.js';
import { FORECAST_DAYS } from '../weather/window.js';
import type { Services } from './context.js';

export interface StatePageKey {
  stateCode: string;
  limit: number;
  offset: number;
}

/** Everything about a resort today: its report, the day's weather and each trail's and lift's state. */
export interface ResortSnapshot {
  resort: ResortRecord;
  today: string;
  /** Last 7 days and the forecast days, oldest first. */
  days: StoredDay[];
  source: string;
  report: SnowReport;
  trails: (TrailFacts & TrailState)[];
  lifts: (LiftFacts & { status: LiftStatus })[];
}

export interface Loaders {
  zipByCode: DataLoader<string, ZipRecord | null>;
  stateByCode: DataLoader<string, StateRecord | null>;
  zipsByState: DataLoader<StatePageKey, ZipRecord[], string>;
  resortById: DataLoader<string, ResortRecord | null>;
  trailsByResort: DataLoader<string, TrailFacts[]>;
  liftsByResort: DataLoader<string, LiftFacts[]>;
  liveLiftsByResort: DataLoader<string, LiveLiftRow[]>;
  recentDaysByResort: DataLoader<string, StoredDay[]>;
  snapshotByResort: DataLoader<string, ResortSnapshot>;
}

/** Orders rows to match the requested keys, null where a key has no row. */
function byKey<K, V>(keys: readonly K[], rows: V[], keyOf: (row: V) => K): (V | null)[] {
  const map = new Map(rows.map((r) => [keyOf(r), r]));
  return keys.map((k) => map.get(k) ?? null);
}

/** Groups rows under the requested keys, an empty list where a key has none. */
function groupBy<K, V>(keys: readonly K[], rows: V[], keyOf: (row: V) => K): V[][] {
  const map = new Map<K, V[]>(keys.map((k) => [k, []]));
  for (const r of rows) map.get(keyOf(r))?.push(r);
  return keys.map((k) => map.get(k)!);
}

const unwrap = <T>(values: (T | Error)[]): T[] =>
  values.map((v) => {
    if (v instanceof Error) throw v;
    return v;
  });

/** Fresh per request (REST or GraphQL): batching within a request, no caching across them. */
export function createLoaders({ repos, weatherWindow, snapshots }: Services): Loaders {
  const loaders: Loaders = {
    zipByCode: new DataLoader((zips) => Promise.resolve(byKey(zips, repos.zips.findByZips(zips), (z) => z.zip))),
    stateByCode: new DataLoader((codes) => Promise.resolve(byKey(codes, repos.zips.findStates(codes), (s) => s.stateCode))),
    // Pages of different states with the same window share one statement; each window is one more.
    zipsByState: new DataLoader(
      async (keys) => {
        const groups = new Map<string, { limit: number; offset: number; codes: string[] }>();
        for (const k of keys) {
          const g = groups.get(`${k.limit}:${k.offset}`) ?? { limit: k.limit, offset: k.offset, codes: [] };
          g.codes.push(k.stateCode);
          groups.set(`${k.limit}:${k.offset}`, g);
        }
        const pages = new Map<string, ZipRecord[]>();
        for (const g of groups.values()) {
          for (const row of repos.zips.pageByStates(g.codes, g.limit, g.offset)) {
            const key = `${row.stateCode}:${g.limit}:${g.offset}`;
            const list = pages.get(key) ?? [];
            list.push(row);
            pages.set(key, list);
          }
        }
        return keys.map((k) => pages.get(`${k.stateCode}:${k.limit}:${k.offset}`) ?? []);
      },
      { cacheKeyFn: (k) => `${k.stateCode}:${k.limit}:${k.offset}` },
    ),
    resortById: new DataLoader((ids) => Promise.resolve(byKey(ids, repos.resorts.findByIds(ids), (r) => r.id))),
    trailsByResort: new DataLoader((ids) => Promise.resolve(groupBy(ids, repos.inventory.trailsOf(ids), (t) => t.resortId))),
    liftsByResort: new DataLoader((ids) => Promise.resolve(groupBy(ids, repos.inventory.liftsOf(ids), (l) => l.resortId))),
    liveLiftsByResort: new DataLoader((ids) => Promise.resolve(groupBy(ids, repos.inventory.liveLiftsOf(ids), (l) => l.resortId))),
    recentDaysByResort: new DataLoader(async (ids) => {
      const today = await weatherWindow.ensureCurrent();
      const rows = repos.weather.daysOf(ids, addDays(today, -6), addDays(today, FORECAST_DAYS - 1));
      return groupBy(ids, rows, (d) => d.resortId);
    }),
    snapshotByResort: new DataLoader(async (ids) => {
      const today = await weatherWindow.ensureCurrent();
      const generation = `${today}|${repos.weather.version}|${repos.inventory.version}`;
      const missing = ids.filter((id) => !snapshots.get(generation, id));
      if (missing.length > 0) {
        const [resorts, days, trails, lifts, live] = await Promise.all([
          loaders.resortById.loadMany(missing),
          loaders.recentDaysByResort.loadMany(missing),
          loaders.trailsByResort.loadMany(missing),
          loaders.liftsByResort.loadMany(missing),
          loaders.liveLiftsByResort.loadMany(missing),
        ]);
        const r = unwrap(resorts);
        const d = unwrap(days);
        const t = unwrap(trails);
        const l = unwrap(lifts);
        const v = unwrap(live);
        missing.forEach((id, i) => {
          const resort = r[i];
          if (!resort) return;
          const { report, trailStates, liftStates } = snowReport(resort, d[i]!, t[i]!, l[i]!, today);
          const liveLifts = v[i]!.map((x) => ({
            id: `${resort.id}:live${x.ordinal}`, resortId: resort.id, name: x.name, type: liftTypeFromName(x.name),
            seats: null, capacityPerHour: null, openThreshold: 0, source: x.source as 'liftie', status: x.status,
          }));
          const lifts = liveLifts.length > 0 ? liveLifts : l[i]!.map((lift, j) => ({ ...lift, status: liftStates[j]! }));
          snapshots.set(generation, {
            resort,
            today,
            days: d[i]!,
            source: d[i]!.find((x) => x.date === today)?.source ?? 'none',
            // Live lift status, where a feed gives it, is what the report counts.
            report: { ...report, openLifts: lifts.filter((x) => x.status === 'OPEN').length, totalLifts: lifts.length },
            trails: t[i]!.map((trail, j) => ({ ...trail, ...trailStates[j]! })),
            lifts,
          });
        });
      }
      return ids.map((id) => snapshots.get(generation, id) ?? new Error(`resort ${id} not found`));
    }),
  };
  return loaders;
}
