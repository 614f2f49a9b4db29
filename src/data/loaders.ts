import DataLoader from 'dataloader';
import { addDays } from '../domain/dates.js';
import type { LiftFacts, TrailFacts } from '../domain/resort.js';
import { FORECAST_DAYS, windowFor } from '../domain/weather/window.js';
import { MEASURABLE_SNOWFALL_CM, type Snowfall } from '../domain/conditions.js';
import type { ResortRecord } from './repositories/resorts.js';
import type { StoredDay } from './repositories/weather.js';
import type { StateRecord, ZipRecord } from './repositories/zips.js';
import type { LiveLiftRow } from './repositories/inventory.js';
import { buildSnapshot, type ResortSnapshot } from './snapshots/snapshot.js';
import type { Repositories } from './repositories/index.js';
import type { SnapshotStore } from './snapshots/store.js';
import type { DataVersion } from './data-version.js';
import { traced, tracingOn } from '../telemetry/trace.js';
import { nextTurn } from '../lib/turn.js';

/** Times a snapshot batch starts again because the data changed under it, before it gives up. */
const SNAPSHOT_RESTARTS = 3;

export interface StatePageKey {
  stateCode: string;
  limit: number;
  offset: number;
}

export interface Loaders {
  /**
   * A ZIP from the table held in memory, without a promise or a batch (nothing to batch: no
   * statement runs); undefined while the table is not loaded yet (then zipByCode reads SQLite).
   */
  zipInMemory(code: string): ZipRecord | null | undefined;
  /** A state (null when there is none): the 51 are always in memory. */
  state(code: string): StateRecord | null;
  /** A state's page from the table in memory, without a batch; undefined before the table is loaded. */
  statePageInMemory(key: StatePageKey): ZipRecord[] | undefined;
  readonly zipByCode: DataLoader<string, ZipRecord | null>;
  readonly zipsByState: DataLoader<StatePageKey, ZipRecord[], string>;
  readonly resortById: DataLoader<string, ResortRecord | null>;
  readonly trailsByResort: DataLoader<string, TrailFacts[]>;
  readonly liftsByResort: DataLoader<string, LiftFacts[]>;
  readonly liveLiftsByResort: DataLoader<string, LiveLiftRow[]>;
  readonly recentDaysByResort: DataLoader<string, StoredDay[]>;
  readonly earlierSnowfallByResort: DataLoader<string, Snowfall | null>;
  readonly snapshotByResort: DataLoader<string, ResortSnapshot<ResortRecord>>;
}

/** Orders rows to match the requested keys, null where a key has no row. */
function byKey<K, V>(keys: readonly K[], rows: V[], keyOf: (row: V) => K): (V | null)[] {
  if (keys.length === 1) return [rows[0] ?? null];
  const map = new Map(rows.map((r) => [keyOf(r), r]));
  return keys.map((k) => map.get(k) ?? null);
}

/** Groups rows under the requested keys, an empty list where a key has none. */
function groupBy<K, V>(keys: readonly K[], rows: V[], keyOf: (row: V) => K): V[][] {
  const map = new Map<K, V[]>(keys.map((k) => [k, []]));
  for (const r of rows) map.get(keyOf(r))?.push(r);
  return keys.map((k) => map.get(k)!);
}

/**
 * A loader's batch function, in a span of its own when tracing is on (one span per batch, that is
 * per SQL statement or snapshot build, never per field); as it is when tracing is off.
 */
function batch<K, V>(name: string, load: (keys: readonly K[]) => Promise<V[]>): (keys: readonly K[]) => Promise<V[]> {
  return (keys) => (tracingOn() ? traced(`load ${name}`, { 'db.system': 'sqlite', 'loader.keys': keys.length }, () => load(keys)) : load(keys));
}

const unwrap = <T>(values: (T | Error)[]): T[] =>
  values.map((v) => {
    if (v instanceof Error) throw v;
    return v;
  });

/**
 * Fresh per request (REST or GraphQL): batching within a request, no caching across them. Each
 * loader is created when a resolver first asks for it, so a ZIP lookup builds one, not nine.
 */
/** What the loaders read from: the repositories, the shared snapshots, and the weather window they make sure of. */
export interface LoaderServices {
  repos: Repositories;
  snapshots: SnapshotStore;
  /** Resorts whose snapshots are loaded and built per turn of the event loop. */
  snapshotChunk: number;
  dataVersion: Pick<DataVersion, 'current'>;
  /** Makes sure today's weather is stored for these resorts (weather/window.ts); resolves to today's UTC date. */
  weatherWindow: { ensureFor(ids: readonly string[]): Promise<string> };
}

export class RequestLoaders implements Loaders {
  private _zipByCode?: Loaders['zipByCode'];
  private _zipsByState?: Loaders['zipsByState'];
  private _resortById?: Loaders['resortById'];
  private _trailsByResort?: Loaders['trailsByResort'];
  private _liftsByResort?: Loaders['liftsByResort'];
  private _liveLiftsByResort?: Loaders['liveLiftsByResort'];
  private _recentDaysByResort?: Loaders['recentDaysByResort'];
  private _earlierSnowfallByResort?: Loaders['earlierSnowfallByResort'];
  private _snapshotByResort?: Loaders['snapshotByResort'];

  constructor(private readonly services: LoaderServices) {}

  zipInMemory(code: string): ZipRecord | null | undefined {
    return this.services.repos.zips.inMemory(code);
  }

  state(code: string): StateRecord | null {
    return this.services.repos.zips.state(code);
  }

  statePageInMemory(key: StatePageKey): ZipRecord[] | undefined {
    return this.services.repos.zips.statePageInMemory(key.stateCode, key.limit, key.offset);
  }

  get zipByCode() {
    const { zips } = this.services.repos;
    return (this._zipByCode ??= new DataLoader(batch('zipByCode', (codes) => Promise.resolve(byKey(codes, zips.findByZips(codes), (z) => z.zip)))));
  }

  /** Pages of different states with the same window share one statement; each window is one more. */
  get zipsByState() {
    const { zips } = this.services.repos;
    return (this._zipsByState ??= new DataLoader(
      batch('zipsByState', async (keys: readonly StatePageKey[]) => {
        const groups = new Map<string, { limit: number; offset: number; codes: string[] }>();
        for (const k of keys) {
          const g = groups.get(`${k.limit}:${k.offset}`) ?? { limit: k.limit, offset: k.offset, codes: [] };
          g.codes.push(k.stateCode);
          groups.set(`${k.limit}:${k.offset}`, g);
        }
        const pages = new Map<string, ZipRecord[]>();
        for (const g of groups.values()) {
          // Rows come state by state: a key and a list per state, not a key string per row.
          let state: string | null = null;
          let list: ZipRecord[] = [];
          for (const row of zips.pageByStates(g.codes, g.limit, g.offset)) {
            if (row.stateCode !== state) {
              state = row.stateCode;
              const key = `${state}:${g.limit}:${g.offset}`;
              list = pages.get(key) ?? [];
              pages.set(key, list);
            }
            list.push(row);
          }
        }
        return keys.map((k) => pages.get(`${k.stateCode}:${k.limit}:${k.offset}`) ?? []);
      }),
      { cacheKeyFn: (k) => `${k.stateCode}:${k.limit}:${k.offset}` },
    ));
  }

  get resortById() {
    const { resorts } = this.services.repos;
    return (this._resortById ??= new DataLoader(batch('resortById', (ids) => Promise.resolve(byKey(ids, resorts.findByIds(ids), (r) => r.id)))));
  }

  get trailsByResort() {
    const { inventory } = this.services.repos;
    return (this._trailsByResort ??= new DataLoader(
      batch('trailsByResort', (ids) => Promise.resolve(groupBy(ids, inventory.trailsOf(ids), (t) => t.resortId))),
    ));
  }

  get liftsByResort() {
    const { inventory } = this.services.repos;
    return (this._liftsByResort ??= new DataLoader(batch('liftsByResort', (ids) => Promise.resolve(groupBy(ids, inventory.liftsOf(ids), (l) => l.resortId)))));
  }

  get liveLiftsByResort() {
    const { inventory } = this.services.repos;
    return (this._liveLiftsByResort ??= new DataLoader(
      batch('liveLiftsByResort', (ids) => Promise.resolve(groupBy(ids, inventory.liveLiftsOf(ids), (l) => l.resortId))),
    ));
  }

  get recentDaysByResort() {
    const { repos, weatherWindow } = this.services;
    return (this._recentDaysByResort ??= new DataLoader(
      batch('recentDaysByResort', async (ids: readonly string[]) => {
        const today = await weatherWindow.ensureFor(ids);
        // `today` is the UTC date; a resort's local date is a day either side of it at most, and
        // its reports reach back 7 days (new snow over 168 hours) and forward over the forecast.
        return groupBy(ids, repos.weather.daysOf(ids, addDays(today, -8), addDays(today, FORECAST_DAYS)), (d) => d.resortId);
      }),
    ));
  }

  /**
   * Each resort's last measurable snowfall before its recent days (above): a report's
   * `lastSnowfall` when none of those had any. Looked for over the stored window.
   */
  get earlierSnowfallByResort() {
    const { repos, weatherWindow } = this.services;
    return (this._earlierSnowfallByResort ??= new DataLoader(
      batch('earlierSnowfallByResort', async (ids: readonly string[]) => {
        const today = await weatherWindow.ensureFor(ids);
        const rows = repos.weather.lastSnowfalls(ids, windowFor(today).from, addDays(today, -8), MEASURABLE_SNOWFALL_CM);
        const byId = new Map(rows.map((r) => [r.resortId, { date: r.date, cm: r.cm }]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
    ));
  }

  /**
   * Snapshots come from the shared store; only resorts missing there are loaded, in one batch per
   * loader for up to `snapshotChunk` resorts. More (a ranking over thousands of imported resorts)
   * are loaded and built a chunk per turn of the event loop, so other requests go on meanwhile.
   * A sync run may publish (or the hour turn) while a chunk loads: then the batch starts again on
   * the new data, so one list never mixes snapshots of two versions of the data.
   */
  get snapshotByResort() {
    const { weatherWindow } = this.services;
    return (this._snapshotByResort ??= new DataLoader(
      batch('snapshotByResort', async (ids: readonly string[]) => {
        await weatherWindow.ensureFor(ids);
        for (let restarts = 0; ; restarts++) {
          const built = await this.buildSnapshots(ids, restarts < SNAPSHOT_RESTARTS);
          if (built) return built;
          // Rows read before the change must not be reused: every loader under the snapshots forgets.
          for (const loader of [
            this.resortById,
            this.recentDaysByResort,
            this.earlierSnowfallByResort,
            this.trailsByResort,
            this.liftsByResort,
            this.liveLiftsByResort,
          ])
            loader.clearAll();
        }
      }),
    ));
  }

  /** The data version snapshots are built from: the hour, the weather and the inventory. */
  private generationNow(): { asOf: Date; generation: string } {
    const { asOf, version } = this.services.dataVersion.current();
    return { asOf, generation: version };
  }

  /**
   * The snapshots of `ids`, all of one generation; null when the generation changed while chunks
   * were loading (and `mayRestart`), for the caller to start again.
   */
  private async buildSnapshots(ids: readonly string[], mayRestart: boolean): Promise<(ResortSnapshot<ResortRecord> | Error)[] | null> {
    const { snapshots, snapshotChunk } = this.services;
    const { asOf, generation } = this.generationNow();
    const found = new Map<string, ResortSnapshot<ResortRecord>>();
    const wanted: string[] = [];
    for (const id of ids) {
      const kept = snapshots.get(generation, id) as ResortSnapshot<ResortRecord> | undefined;
      if (kept) found.set(id, kept);
      else wanted.push(id);
    }
    for (let start = 0; start < wanted.length; start += snapshotChunk) {
      if (start > 0) await nextTurn();
      const missing = wanted.slice(start, start + snapshotChunk);
      const [resorts, days, earlier, trails, lifts, live] = await Promise.all([
        this.resortById.loadMany(missing),
        this.recentDaysByResort.loadMany(missing),
        this.earlierSnowfallByResort.loadMany(missing),
        this.trailsByResort.loadMany(missing),
        this.liftsByResort.loadMany(missing),
        this.liveLiftsByResort.loadMany(missing),
      ]);
      // Read after a publish (or in a new hour): these rows belong to another generation.
      if (mayRestart && this.generationNow().generation !== generation) return null;
      const r = unwrap(resorts);
      const d = unwrap(days);
      const e = unwrap(earlier);
      const t = unwrap(trails);
      const l = unwrap(lifts);
      const v = unwrap(live);
      missing.forEach((id, i) => {
        const resort = r[i];
        if (!resort) return;
        const offsets = this.services.repos.zoneOffsets.of(resort.timezone);
        const snapshot = buildSnapshot({ resort, days: d[i]!, earlierSnowfall: e[i]!, trails: t[i]!, lifts: l[i]!, live: v[i]!, asOf, offsets });
        snapshots.set(generation, snapshot);
        found.set(id, snapshot);
      });
    }
    return ids.map((id) => found.get(id) ?? new Error(`resort ${id} not found`));
  }
}
