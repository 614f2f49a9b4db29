import type { ResortFacts } from '../domain/resort.js';
import type { HistoryDay } from '../domain/history.js';
import { simulateDays, type GeneratorSite } from '../domain/weather/generator.js';
import type { ConditionsProvider, HistoryProvider } from './provider.js';
import type { DailyWeather } from '../domain/weather/daily.js';
import { LRUCache } from 'lru-cache';

/**
 * The generator is a pure function of the resort and the dates, and a sync run (or the window fill
 * after a restart) asks for the same windows again; computing one means simulating from the
 * season's start, so recent windows are kept (read-only: callers copy what they store).
 */
const windows = new LRUCache<string, readonly DailyWeather[]>({ max: 1000 });

const siteOf = (resort: ResortFacts, at?: { lat: number; lng: number }): GeneratorSite => ({
  // The resort's own point keeps the resort's id, so its history matches its reports.
  id: !at || (at.lat === resort.lat && at.lng === resort.lng) ? resort.id : `${resort.id}@${at.lat},${at.lng}`,
  lat: at?.lat ?? resort.lat,
  baseElevation: resort.baseElevation,
  summitElevation: resort.summitElevation,
});

/** The offline default: deterministic simulated weather, labelled "simulated" wherever served. */
export const simulatedProvider: ConditionsProvider & HistoryProvider = {
  name: 'simulated',
  daily: async (resort, from, to, today) => {
    const site = siteOf(resort);
    const key = `${site.id}|${site.lat}|${site.baseElevation}|${site.summitElevation}|${from}|${to}|${today}`;
    let days = windows.get(key);
    if (!days) windows.set(key, (days = simulateDays(site, from, to, today)));
    return days as DailyWeather[];
  },
  history: async (resort, points, from, to) =>
    points.map((p) =>
      simulateDays(siteOf(resort, p), from, to).map(
        (d): HistoryDay => ({
          date: d.date,
          snowfallCm: d.snowfallBaseCm,
          precipitationMm: d.precipitationMm,
          snowDepthCm: d.snowDepthBaseCm,
          tempMinC: d.baseTempMin,
          tempMaxC: d.baseTempMax,
        }),
      ),
    ),
};
