/** One day of weather and snow at a resort, metric. The unit every provider produces. */
export interface DailyWeather {
  date: string;
  baseTempMin: number;
  baseTempMax: number;
  summitTempMin: number;
  summitTempMax: number;
  /** Water equivalent at the base, mm. */
  precipitationMm: number;
  /** Chance of precipitation, percent; 100 or 0 for observed days. */
  precipitationProbability: number;
  snowfallBaseCm: number;
  snowfallSummitCm: number;
  snowDepthBaseCm: number;
  snowDepthSummitCm: number;
  /** Snowfall at the summit since the season's start, cm. */
  seasonSnowfallCm: number;
  windSpeedBaseKmh: number;
  windGustBaseKmh: number;
  windSpeedSummitKmh: number;
  windGustSummitKmh: number;
  windDirectionDeg: number;
  /** The same at mid-mountain: the elevation halfway between base and summit (midElevation). */
  midTempMin: number;
  midTempMax: number;
  snowfallMidCm: number;
  snowDepthMidCm: number;
  windSpeedMidKmh: number;
  windGustMidKmh: number;
  /** Elevation where precipitation turns from rain to snow, m. */
  snowLineM: number;
  /**
   * Summit snowfall in each local hour 0–23 (cm, comma-separated) when the provider reports hours;
   * absent or null for the offline generator, whose hours follow from the daily total.
   */
  snowfallSummitHourly?: string | null;
}

/** Mid-mountain: halfway between base and summit, rounded to the metre (where mid-level weather is asked for). */
export function midElevation(site: { baseElevation: number; summitElevation: number }): number {
  return Math.round((site.baseElevation + site.summitElevation) / 2);
}
