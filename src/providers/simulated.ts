import type { ResortFacts } from '../domain/resort.js';
import type { HistoryDay } from '../domain/history.js';
import { simulateDays, type GeneratorSite } from '../domain/weather/generator.js';
import type { ConditionsProvider, HistoryProvider } from './provider.js';

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
  daily: async (resort, from, to, today) => simulateDays(siteOf(resort), from, to, today),
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
