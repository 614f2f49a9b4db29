import type { ResortFacts } from '../domain/resort.js';
import type { HistoryDay } from '../domain/history.js';
import { simulateDays, type GeneratorSite } from '../domain/weather/generator.js';
import type { ConditionsProvider, HistoryProvider } from './provider.js';
import { UpstreamError } from './upstream.js';
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
  // Simulating a point means stepping from the season's start: up to a few ms each. One point per
  // turn of the event loop, so other requests are answered in between, and a cancelled request
  // (its deadline, or its client gone) stops at the next point.
  history: async (resort, points, from, to, _recent, bounds = {}) => {
    const out: HistoryDay[][] = [];
    for (const p of points) {
      await new Promise((resolve) => setImmediate(resolve));
      if (bounds.signal?.aborted) throw new UpstreamError('simulated', 'cancelled', 'the request was cancelled');
      out.push(
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
      );
    }
    return out;
  },
};
