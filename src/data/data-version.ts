import { randomUUID } from 'node:crypto';
import type { Repositories } from './repositories/index.js';
import { hourOf } from './snapshots/snapshot.js';

/**
 * What an answer depends on, and so how long it stays right: `static` answers change only with the
 * data set itself (a rebuild, which is a new process); `data` answers change with the hour, the
 * stored weather and the inventory; `none` answers (health, sync) are never kept.
 */
export type Freshness = 'static' | 'data' | 'none';

/**
 * The version of the data an answer depends on, built here and nowhere else: resort answers on the
 * hour (reports describe the current hour), the stored weather and the inventory; ZIP answers on
 * the ZIP data, which changes only with a rebuild (a new process). Part of every response-cache
 * key and of every snapshot's generation.
 */
export class DataVersion {
  private readonly zipData = randomUUID();

  constructor(
    private readonly repos: Pick<Repositories, 'weather' | 'inventory'>,
    private readonly now: () => Date,
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

  /** A sync run published, or a replica applied a published window: weather and live lifts changed. */
  published(): void {
    this.repos.weather.changed();
    this.repos.inventory.version++;
  }
}
