import { addDays, isoDate } from '../domain/dates.js';
import type { ConditionsProvider } from '../providers/provider.js';
import type { ResortRepository } from '../repositories/resorts.js';
import type { StoredDay, WeatherRepository } from '../repositories/weather.js';
import type { Logger } from '../logger.js';

/** Days of history kept: the longest insights window. */
export const HISTORY_DAYS = 60;
/** Forecast days served, today included. */
export const FORECAST_DAYS = 7;

export function windowFor(today: string): { from: string; to: string } {
  return { from: addDays(today, -(HISTORY_DAYS - 1)), to: addDays(today, FORECAST_DAYS - 1) };
}

/**
 * Keeps the stored weather window (the last 60 days and the next 7) current for the clock's
 * today. Cheap when it is: one string comparison per request; a new day writes the new window.
 */
export class WeatherWindow {
  private coveredFor: string | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly resorts: ResortRepository,
    private readonly weather: WeatherRepository,
    private readonly provider: ConditionsProvider,
    private readonly now: () => Date,
    private readonly logger: Logger,
    /** Fill missing days on a new day by itself (the offline provider); otherwise sync runs do. */
    private readonly autoFill = true,
  ) {}

  today(): string {
    return isoDate(this.now());
  }

  async ensureCurrent(): Promise<string> {
    const today = this.today();
    if (this.coveredFor === today || !this.autoFill) return today;
    this.refreshing ??= this.refresh(today).finally(() => (this.refreshing = null));
    await this.refreshing;
    return today;
  }

  private async refresh(today: string): Promise<void> {
    const { from, to } = windowFor(today);
    const all = this.resorts.all();
    if (this.weather.resortsCovering(from, to) < all.length) {
      const started = performance.now();
      const rows: StoredDay[] = [];
      for (const resort of all) {
        for (const day of await this.provider.daily(resort, from, to, today)) {
          rows.push({ ...day, resortId: resort.id, source: this.provider.name });
        }
      }
      this.weather.replaceWindow(rows, addDays(from, -30));
      this.logger.info({ today, from, to, resorts: all.length, ms: Math.round(performance.now() - started) }, 'weather window written');
    }
    this.coveredFor = today;
  }
}
