import type { ResortFacts } from '../domain/resort.js';
import type { HistoryDay } from '../domain/history.js';
import { simulateDays, type GeneratorSite } from '../domain/weather/generator.js';
import type { ConditionsProvider, HistoryProvider } from './provider.js';
import { UpstreamError } from './upstream.js';
import { nextTurn } from '../lib/turn.js';

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
  // Computed each time, not kept: simulating a window is cheap, and keeping every resort's
  // windows held memory for a sync run an hour later (BENCHMARKS.md, design figures: simulated windows).
  daily: async (resort, from, to, today) => simulateDays(siteOf(resort), from, to, today),
  // Simulating a point means stepping from the season's start: up to a few ms each. One point per
  // turn of the event loop, so other requests are answered in between, and a cancelled request
  // (its deadline, or its client gone) stops at the next point.
  history: async (resort, points, from, to, _recent, bounds = {}) => {
    const out: HistoryDay[][] = [];
    for (const p of points) {
      await nextTurn();
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
