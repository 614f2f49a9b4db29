import type { Db } from '../db/open.js';
import type { DailyWeather } from '../domain/weather/daily.js';

export interface StoredDay extends DailyWeather {
  resortId: string;
  source: string;
}

const COLUMNS = `resort_id AS resortId, date, source, base_temp_min AS baseTempMin, base_temp_max AS baseTempMax,
  summit_temp_min AS summitTempMin, summit_temp_max AS summitTempMax, precipitation_mm AS precipitationMm,
  precipitation_probability AS precipitationProbability, snowfall_base_cm AS snowfallBaseCm,
  snowfall_summit_cm AS snowfallSummitCm, snow_depth_base_cm AS snowDepthBaseCm,
  snow_depth_summit_cm AS snowDepthSummitCm, season_snowfall_cm AS seasonSnowfallCm,
  wind_speed_base_kmh AS windSpeedBaseKmh, wind_gust_base_kmh AS windGustBaseKmh,
  wind_speed_summit_kmh AS windSpeedSummitKmh, wind_gust_summit_kmh AS windGustSummitKmh,
  wind_direction_deg AS windDirectionDeg, snow_line_m AS snowLineM`;

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
  private readonly totalsStmt;
  private readonly totalsMemo = new Map<string, SnowfallTotal[]>();

  constructor(private readonly db: Db) {
    this.rangeStmt = db.prepare<[string, string, string], StoredDay>(
      `SELECT ${COLUMNS} FROM daily_weather
       WHERE resort_id IN (SELECT value FROM json_each(?)) AND date BETWEEN ? AND ? ORDER BY resort_id, date`,
    );
    this.upsertStmt = db.prepare(`INSERT OR REPLACE INTO daily_weather (resort_id, date, source, base_temp_min,
      base_temp_max, summit_temp_min, summit_temp_max, precipitation_mm, precipitation_probability, snowfall_base_cm,
      snowfall_summit_cm, snow_depth_base_cm, snow_depth_summit_cm, season_snowfall_cm, wind_speed_base_kmh,
      wind_gust_base_kmh, wind_speed_summit_kmh, wind_gust_summit_kmh, wind_direction_deg, snow_line_m)
      VALUES (@resortId, @date, @source, @baseTempMin, @baseTempMax, @summitTempMin, @summitTempMax, @precipitationMm,
      @precipitationProbability, @snowfallBaseCm, @snowfallSummitCm, @snowDepthBaseCm, @snowDepthSummitCm,
      @seasonSnowfallCm, @windSpeedBaseKmh, @windGustBaseKmh, @windSpeedSummitKmh, @windGustSummitKmh,
      @windDirectionDeg, @snowLineM)`);
    this.pruneStmt = db.prepare('DELETE FROM daily_weather WHERE date < ?');
    this.coverageStmt = db.prepare<[string, string], { n: number }>(
      `SELECT min((SELECT count(*) FROM daily_weather WHERE date = ?), (SELECT count(*) FROM daily_weather WHERE date = ?)) AS n`,
    );
    // Snowfall at the summit over a window, with each resort's biggest day (first such day on ties).
    this.totalsStmt = db.prepare<{ from: string; to: string }, SnowfallTotal>(
      `SELECT resort_id AS resortId, count(*) AS days, round(sum(snowfall_summit_cm), 1) AS totalCm,
         max(snowfall_summit_cm) AS maxDayCm,
         (SELECT d2.date FROM daily_weather d2 WHERE d2.resort_id = d.resort_id AND d2.date BETWEEN :from AND :to
            ORDER BY d2.snowfall_summit_cm DESC, d2.date LIMIT 1) AS maxDayDate
       FROM daily_weather d WHERE date BETWEEN :from AND :to GROUP BY resort_id ORDER BY resort_id`,
    );
  }

  daysOf(resortIds: readonly string[], from: string, to: string): StoredDay[] {
    return this.rangeStmt.all(JSON.stringify(resortIds), from, to);
  }

  /** How many resorts have rows on both `first` and `last` (the window is covered when all do). */
  resortsCovering(first: string, last: string): number {
    return this.coverageStmt.get(first, last)!.n;
  }

  /** Writes days for many resorts in one transaction: readers see the old window or the new one. */
  replaceWindow(days: StoredDay[], pruneBefore: string): void {
    this.db.transaction(() => {
      for (const d of days) this.upsertStmt.run(d);
      this.pruneStmt.run(pruneBefore);
    })();
    this.changed();
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
