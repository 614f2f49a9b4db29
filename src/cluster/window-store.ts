import type { Db } from '../data/db/open.js';
import { DAILY_WEATHER } from '../data/db/tables.js';
import { addDays } from '../domain/dates.js';
import { nextTurn } from '../lib/turn.js';

/** A sync run's published data as replicas exchange it: weather rows (positional) and live lifts. */
export interface PublishedWindow {
  from: string;
  to: string;
  /** DAILY_WEATHER's fields, in the order of each row's values. */
  fields: string[];
  days: unknown[][];
  lifts: { resortId: string; ordinal: number; name: string; status: string; source: string; updatedAt: string }[];
}

/** Resorts read in one turn of the event loop (some 70 rows each). */
const RESORTS_PER_TURN = 15;

/**
 * Reads the window a run published here, and applies one published elsewhere — in one
 * transaction, the same all-or-nothing rule as a local publish: readers see the old window or
 * the new one.
 */
export class WindowStore {
  constructor(private readonly db: Db) {}

  /**
   * The window as published here, read some resorts a turn so that requests are answered between
   * (all at once, the rows held the loop for a fifth of a second). Only this replica's sync run
   * writes the window, one run at a time, so the slices are of one version.
   */
  async read(from: string, to: string): Promise<PublishedWindow> {
    const fields = Object.keys(DAILY_WEATHER.columns);
    const resortIds = this.db
      .prepare('SELECT DISTINCT resort_id FROM daily_weather WHERE date BETWEEN ? AND ? ORDER BY resort_id')
      .pluck()
      .all(from, to) as string[];
    const slice = this.db
      .prepare(`SELECT ${DAILY_WEATHER.list} FROM daily_weather WHERE resort_id BETWEEN ? AND ? AND date BETWEEN ? AND ? ORDER BY resort_id, date`)
      .raw();
    const days: unknown[][] = [];
    for (let i = 0; i < resortIds.length; i += RESORTS_PER_TURN) {
      if (i > 0) await nextTurn();
      const ids = resortIds.slice(i, i + RESORTS_PER_TURN);
      for (const row of slice.all(ids[0], ids[ids.length - 1], from, to) as unknown[][]) days.push(row);
    }
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
