import { addDays } from '../dates.js';

/** Days of history kept: the longest insights window. */
export const HISTORY_DAYS = 60;
/** Forecast days served, today included. */
export const FORECAST_DAYS = 7;

/**
 * The stored window for a UTC date: the last 60 days and the next 7 of every resort's local
 * calendar. Local dates run from a day before the UTC date (UTC−12) to a day after (UTC+14), so
 * the window is a day wider on each side.
 */
export function windowFor(utcToday: string): { from: string; to: string } {
  return { from: addDays(utcToday, -HISTORY_DAYS), to: addDays(utcToday, FORECAST_DAYS) };
}
