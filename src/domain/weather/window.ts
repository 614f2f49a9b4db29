import { addDays } from '../dates.js';

/** Days of history kept: the longest insights window. */
export const HISTORY_DAYS = 60;
/** Forecast days served, today included. */
export const FORECAST_DAYS = 7;

/** The stored window for a day: the last 60 days and the next 7. */
export function windowFor(today: string): { from: string; to: string } {
  return { from: addDays(today, -(HISTORY_DAYS - 1)), to: addDays(today, FORECAST_DAYS - 1) };
}
