import type { Db } from '../data/db/open.js';
import { DAILY_WEATHER } from '../data/db/tables.js';
import { addDays } from '../domain/dates.js';

/** A sync run's published data as replicas exchange it: weather rows (positional) and live lifts. */
export interface PublishedWindow {
  from: string;
  to: string;
  /** DAILY_WEATHER's fields, in the order of each row's values. */
  fields: string[];
  days: unknown[][];
  lifts: { resortId: string; ordinal: number; name: string; status: string; source: string; updatedAt: string }[];
}

/**
 * Reads the window a run published here, and applies one published elsewhere — in one
 * transaction, the same all-or-nothing rule as a local publish: readers see the old window or
 * the new one.
 */
export class WindowStore {
  constructor(private readonly db: Db) {}

  read(from: string, to: string): PublishedWindow {
    const fields = Object.keys(DAILY_WEATHER.columns);
    const days = this.db
      .prepare(`SELECT ${DAILY_WEATHER.list} FROM daily_weather WHERE date BETWEEN ? AND ? ORDER BY resort_id, date`)
      .raw()
      .all(from, to) as unknown[][];
    const lifts = this.db
      .prepare('SELECT resort_id AS resortId, ordinal, name, status, source, updated_at AS updatedAt FROM live_lifts ORDER BY resort_id, ordinal')
      .all() as PublishedWindow['lifts'];
    return { from, to, fields, days, lifts };
  }

  apply(window: PublishedWindow): void {
    const fields = Object.keys(DAILY_WEATHER.columns);
    if (window.fields.join() !== fields.join()) throw new Error('the published window has another layout (a replica of another version)');
    const upsert = this.db.prepare(DAILY_WEATHER.insert({ verb: 'INSERT OR REPLACE' }));
    const lift = this.db.prepare('INSERT INTO live_lifts (resort_id, ordinal, name, status, source, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const row of window.days) upsert.run(...row);
      this.db.prepare('DELETE FROM live_lifts').run();
      for (const l of window.lifts) lift.run(l.resortId, l.ordinal, l.name, l.status, l.source, l.updatedAt);
      this.db.prepare('DELETE FROM daily_weather WHERE date < ?').run(addDays(window.from, -30));
    })();
  }
}
