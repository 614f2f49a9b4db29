import type { DailyWeather } from './daily.js';

export const WEATHER_SUMMARIES = ['SNOW', 'RAIN', 'MIXED', 'DRY'] as const;
export type WeatherSummary = (typeof WEATHER_SUMMARIES)[number];

export function summaryOf(day: DailyWeather): WeatherSummary {
  if (day.precipitationMm <= 0) return 'DRY';
  if (day.snowfallBaseCm > 0) return 'SNOW';
  return day.snowfallSummitCm > 0 ? 'MIXED' : 'RAIN';
}

/**
 * Temperature at a moment of the day from the day's minimum and maximum: a cosine through the
 * minimum near 03:00 and the maximum near 15:00 local solar time (UTC + longitude / 15).
 */
export function temperatureAt(min: number, max: number, now: Date, lng: number): number {
  const hours = now.getUTCHours() + now.getUTCMinutes() / 60 + lng / 15;
  const local = ((hours % 24) + 24) % 24;
  const mean = (min + max) / 2;
  return Math.round((mean - ((max - min) / 2) * Math.cos((2 * Math.PI * (local - 3)) / 24)) * 10) / 10;
}
