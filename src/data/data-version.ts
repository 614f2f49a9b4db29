import { randomUUID } from 'node:crypto';
import type { Repositories } from './repositories/index.js';
import { hourOf } from './snapshots/snapshot.js';

/**
 * What an answer depends on, and so how long it stays right: `static` answers change only with the
 * data set itself (a rebuild, which is a new process); `data` answers change with the hour, the
 * stored weather and the inventory; `none` answers (health, sync) are never kept.
 */
export type Freshness = 'static' | 'data' | 'none';

/** ZIP answers are kept a day by clients (the data changes only with a rebuild). */
const ZIP_MAX_AGE_S = 86_400;
/** Resort answers past their time may be served for this long while the client asks again. */
const DATA_REVALIDATE_S = 60;

/**
 * The version of the data an answer depends on, built here and nowhere else: resort answers on the
 * hour (reports describe the current hour), the stored weather and the inventory; ZIP answers on
 * the ZIP data, which changes only with a rebuild (a new process). Part of every response-cache
 * key and of every snapshot's generation.
 */
export class DataVersion {
  private readonly zipData = randomUUID();
  /** The Cache-Control of each freshness, made at most once a second. */
  private readonly lifetimes = new Map<Freshness, { second: number; header: string }>();

  constructor(
    private readonly repos: Pick<Repositories, 'weather' | 'inventory'>,
    private readonly now: () => Date,
    /** When the next scheduled sync run starts, if one is scheduled (new data may come then). */
    private readonly nextSync: () => Date | null = () => null,
  ) {}

  /** The hour the answers describe, and the version of the resort data now. */
  current(): { asOf: Date; version: string } {
    const asOf = hourOf(this.now());
    return { asOf, version: `${asOf.getTime()}|${this.repos.weather.version}|${this.repos.inventory.version}` };
  }

  /** What an answer of this freshness depends on besides its parameters. */
  of(freshness: Freshness): string {
    return freshness === 'static' ? this.zipData : this.current().version;
  }

  /**
   * How long a kept answer of this freshness stays true, for the client's cache: until the data's
   * next known change — the report's next hour or the next scheduled sync run for resort data, a
   * day for ZIP data (it changes only with a rebuild) — then served stale for a while as it asks
   * again (`stale-while-revalidate`). `private`: every answer needs a key, so no shared cache keeps it.
   */
  cacheControl(freshness: Freshness): string {
    const at = this.now().getTime();
    const second = Math.floor(at / 1000);
    const kept = this.lifetimes.get(freshness);
    if (kept?.second === second) return kept.header;
    let header: string;
    if (freshness === 'static') header = `private, max-age=${ZIP_MAX_AGE_S}, stale-while-revalidate=${ZIP_MAX_AGE_S}`;
    else {
      const nextHour = hourOf(new Date(at)).getTime() + 3_600_000;
      const sync = this.nextSync()?.getTime() ?? Infinity;
      const until = Math.min(nextHour, sync > at ? sync : Infinity);
      header = `private, max-age=${Math.max(0, Math.floor((until - at) / 1000))}, stale-while-revalidate=${DATA_REVALIDATE_S}`;
    }
    this.lifetimes.set(freshness, { second, header });
    return header;
  }

  /** A sync run published, or a replica applied a published window: weather and live lifts changed. */
  published(): void {
    this.repos.weather.changed();
    this.repos.inventory.version++;
  }
}
