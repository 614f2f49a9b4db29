import type { ResortFacts } from '../domain/resort.js';
import { simulateDays } from '../domain/weather/generator.js';
import type { ConditionsProvider } from './provider.js';

/** The offline default: deterministic simulated weather, labelled "simulated" wherever served. */
export const simulatedProvider: ConditionsProvider = {
  name: 'simulated',
  daily: async (resort: ResortFacts, from: string, to: string, today: string) =>
    simulateDays({ id: resort.id, lat: resort.lat, baseElevation: resort.baseElevation, summitElevation: resort.summitElevation }, from, to, today),
};
