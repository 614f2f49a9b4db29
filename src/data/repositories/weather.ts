import type { Db } from '../db/open.js';
import type { DailyWeather } from '../../domain/weather/daily.js';
import { DAILY_WEATHER } from '../db/tables.js';
import { intern } from '../../lib/intern.js';

export interface StoredDay extends DailyWeather {
  resortId: string;
  source: string;
  /** When the provider's answer was fetched (ISO 8601, UTC). */
  syncedAt: string;
}

const COLUMNS = DAILY_WEATHER.select();

export interface SnowfallTotal {
  resortId: string;
  days: number;
  totalCm: number;
  maxDayCm: number;
  maxDayDate: string | null;
}

export class WeatherRepository {
  /** Bumped by every write (here or by a sync run), so caches of derived conditions know they are stale. */
  version = 0;

  changed(): void {
    this.version++;
    this.totalsMemo.clear();
  }

  private readonly rangeStmt;
  private readonly upsertStmt;
  private readonly pruneStmt;
  private readonly coverageStmt;
  private readonly missingStmt;
  private readonly totalsStmt;
  private readonly totalsMemo = new Map<string, SnowfallTotal[]>();
  private readonly lastSnowStmt;

  constructor(private readonly db: Db) {
    this.rangeStmt = db
      .prepare<[string, string, string], unknown[]>(
        `SELECT ${COLUMNS} FROM daily_weather
         WHERE resort_id IN (SELECT value FROM json_each(?)) AND date BETWEEN ? AND ? ORDER BY resort_id, date`,
      )
      .raw();
    this.upsertStmt = db.prepare(DAILY_WEATHER.insert({ verb: 'INSERT OR REPLACE' }));
    this.pruneStmt = db.prepare('DELETE FROM daily_weather WHERE date < ?');
    this.coverageStmt = db.prepare<[string, string], { n: number }>(
      `SELECT min((SELECT count(*) FROM daily_weather WHERE date = ?), (SELECT count(*) FROM daily_weather WHERE date = ?)) AS n`,
    );
    this.missingStmt = db
      .prepare<[string, string], string>(
        `SELECT id FROM resorts WHERE id NOT IN (SELECT resort_id FROM daily_weather WHERE date IN (?, ?) GROUP BY resort_id HAVING count(*) = 2) ORDER BY id`,
      )
      .pluck();
    // Each resort's newest day before a date with at least the given summit snowfall (SQLite takes
    // a bare column from the row max() picked).
    this.lastSnowStmt = db.prepare<[string, string, string, number], { resortId: string; date: string; cm: number }>(
      `SELECT resort_id AS resortId, max(date) AS date, snowfall_summit_cm AS cm FROM daily_weather
       WHERE resort_id IN (SELECT value FROM json_each(?)) AND date >= ? AND date < ? AND snowfall_summit_cm >= ? GROUP BY resort_id`,
    );
    // Snowfall at the summit over a window, with each resort's biggest day (first such day on ties).
    // `+date`: read the rows in primary-key order (resort, date), already grouped, rather than through
    // the date index, a lookup into the table per row and a sort to group them (BENCHMARKS.md,
    // design figures).
    this.totalsStmt = db.prepare<{ from: string; to: string }, SnowfallTotal>(
      `SELECT resort_id AS resortId, count(*) AS days, round(sum(snowfall_summit_cm), 1) AS totalCm,
         max(snowfall_summit_cm) AS maxDayCm,
         (SELECT d2.date FROM daily_weather d2 WHERE d2.resort_id = d.resort_id AND d2.date BETWEEN :from AND :to
            ORDER BY d2.snowfall_summit_cm DESC, d2.date LIMIT 1) AS maxDayDate
       FROM daily_weather d WHERE +date BETWEEN :from AND :to GROUP BY resort_id ORDER BY resort_id`,
    );
  }

  /**
   * Days of some resorts; kept by resort snapshots, so as literals of one shape (DAILY_WEATHER.fromRaw)
   * whose resort, date and source are one string each, not one per row (thousands of strings in the store).
   */
  daysOf(resortIds: readonly string[], from: string, to: string): StoredDay[] {
    return this.rangeStmt.all(JSON.stringify(resortIds), from, to).map((row) => {
      const day = DAILY_WEATHER.fromRaw(row) as StoredDay;
      day.resortId = intern(day.resortId);
      day.date = intern(day.date);
      day.source = intern(day.source);
      day.syncedAt = intern(day.syncedAt);
      return day;
    });
  }

  /** Each resort's newest day in [from, before) with at least `minCm` of summit snowfall (none: absent). */
  lastSnowfalls(resortIds: readonly string[], from: string, before: string, minCm: number): { resortId: string; date: string; cm: number }[] {
    return this.lastSnowStmt.all(JSON.stringify(resortIds), from, before, minCm);
  }

  /** How many resorts have rows on both `first` and `last` (the window is covered when all do). */
  resortsCovering(first: string, last: string): number {
    return this.coverageStmt.get(first, last)!.n;
  }

  /** Writes days for some resorts in one transaction: readers see each resort's old days or its new ones. */
  write(days: readonly StoredDay[]): void {
    this.db.transaction(() => {
      for (const d of days) this.upsertStmt.run(DAILY_WEATHER.values(d));
    })();
    this.changed();
  }

  prune(before: string): void {
    this.pruneStmt.run(before);
  }

  /** Resorts without rows on both `first` and `last`: their window is not stored yet. */
  resortsMissing(first: string, last: string): string[] {
    return this.missingStmt.all(first, last);
  }

  /** Totals per resort over a window; kept until the next write, since they are asked for often. */
  snowfallTotals(from: string, to: string): SnowfallTotal[] {
    const key = `${from}|${to}|${this.version}`;
    let totals = this.totalsMemo.get(key);
    if (!totals) {
      if (this.totalsMemo.size > 64) this.totalsMemo.clear();
      totals = this.totalsStmt.all({ from, to });
      this.totalsMemo.set(key, totals);
    }
    return totals;
  }
}
