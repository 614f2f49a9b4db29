import type { ResortFacts } from '../domain/resort.js';
import type { DailyWeather } from '../domain/weather/daily.js';

/**
 * Where conditions come from. The simulated generator is the default; real providers (Open-Meteo,
 * Liftie) implement the same interface and are chosen by configuration.
 */
export interface ConditionsProvider {
  /** Stored with every row and served as `source`, so nobody mistakes simulation for observation. */
  readonly name: string;
  /** Daily weather for one resort from `from` to `to` inclusive; days from `today` on are forecasts. */
  daily(resort: ResortFacts, from: string, to: string, today: string): Promise<DailyWeather[]>;
}
