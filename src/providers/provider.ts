import type { ResortFacts } from '../domain/resort.js';
import type { DailyWeather } from '../domain/weather/daily.js';
import type { HistoryDay } from '../domain/history.js';
import type { LiftStatus } from '../domain/conditions.js';
import type { CallBounds } from './upstream.js';

/**
 * Where conditions come from. The simulated generator is the default; Open-Meteo implements the
 * same interfaces and is chosen by configuration (PROVIDER).
 */
export interface ConditionsProvider {
  /** Stored with every row and served as `source`, so nobody mistakes simulation for observation. */
  readonly name: string;
  /** Daily weather for one resort from `from` to `to` inclusive; days from `today` on are forecasts. */
  daily(resort: ResortFacts, from: string, to: string, today: string, bounds?: CallBounds): Promise<DailyWeather[]>;
}

export interface HistoryProvider {
  readonly name: string;
  /**
   * Daily values at the resort's base elevation for each point, from `from` to `to`, oldest first.
   * `recent` says the window ends today (providers with a lagging archive use their forecast API).
   */
  history(
    resort: ResortFacts,
    points: readonly { lat: number; lng: number }[],
    from: string,
    to: string,
    recent: boolean,
    bounds?: CallBounds,
  ): Promise<HistoryDay[][]>;
}

export interface LiveLift {
  name: string;
  status: LiftStatus;
}

/** Live lift status by a provider's own resort id (Liftie). */
export interface LiftStatusProvider {
  readonly name: string;
  lifts(providerResortId: string, bounds?: CallBounds): Promise<LiveLift[]>;
}
