import { createRng } from '../random.js';
import { addDays, dayNumber, dayOfYear, fromDayNumber } from '../dates.js';
import { plannedSeason } from '../season.js';
import { LAPSE_RATE_PER_KM, normalMeanTemp, seasonAnchorMonthDay, winterness } from './climate.js';
import type { DailyWeather } from './daily.js';

/**
 * A WGEN-style stochastic weather generator, offline and deterministic.
 *
 * Each day draws from its own PRNG seeded by resort id and date, so a date's weather never depends
 * on which day the simulation was asked for. State (wet/dry, temperature anomaly, snowpack) runs
 * from the season anchor (Aug 1 north, Feb 1 south), where everything is reset, to the asked date.
 *
 * Per day: a two-state Markov chain for wet days with storm persistence; precipitation amounts
 * from an exponential distribution; temperature = seasonal normal (latitude, day of year, lapse
 * rate) + an AR(1) anomaly; snow when the day's mean is at or below +1 °C at that elevation;
 * snowpack by accumulation, settling and degree-day melt; snowmaking at the base in season.
 */

export interface GeneratorSite {
  id: string;
  lat: number;
  baseElevation: number;
  summitElevation: number;
}

interface State {
  wet: boolean;
  anomaly: number;
  depthBase: number;
  depthMid: number;
  depthSummit: number;
  seasonSnow: number;
}

const SNOW_MAX_MEAN_C = 1.0;
const SETTLING_PER_DAY = 0.025;
const MELT_CM_PER_DEGREE_DAY = 1.5;

const fresh = (): State => ({ wet: false, anomaly: 0, depthBase: 0, depthMid: 0, depthSummit: 0, seasonSnow: 0 });
const r1 = (x: number) => Math.round(x * 10) / 10;

/**
 * Simulated days from `from` to `to` inclusive. Days from `today` on are forecasts: same values,
 * but a chance of precipitation instead of a certainty.
 */
export function simulateDays(site: GeneratorSite, from: string, to: string, today?: string): DailyWeather[] {
  const anchorMd = seasonAnchorMonthDay(site.lat);
  let anchor = `${from.slice(0, 4)}-${anchorMd}`;
  if (anchor > from) anchor = `${Number(from.slice(0, 4)) - 1}-${anchorMd}`;
  const out: DailyWeather[] = [];
  let state = fresh();
  const end = dayNumber(to);
  for (let n = dayNumber(anchor); n <= end; n++) {
    const date = fromDayNumber(n);
    if (date.slice(5) === anchorMd) state = fresh();
    const day = step(site, date, state);
    if (date >= from) out.push(today && date >= today ? asForecast(day, dayNumber(date) - dayNumber(today), site.id) : day);
  }
  return out;
}

function snowRatio(meanC: number): number {
  // cm of snow per mm of water: 10:1 near freezing, fluffier in the cold.
  return meanC <= -8 ? 1.5 : meanC <= -3 ? 1.2 : 1.0;
}

function step(site: GeneratorSite, date: string, s: State): DailyWeather {
  const rng = createRng(`wx:${site.id}:${date}`);
  const doy = dayOfYear(date);
  const w = winterness(site.lat, doy);

  // Wet or dry: storms persist (p11 > p01), and winters are wetter.
  const p01 = 0.22 + 0.08 * w;
  const p11 = 0.55 + 0.1 * w;
  s.wet = rng.next() < (s.wet ? p11 : p01);
  const precipitationMm = s.wet ? rng.exponential(3 + 4 * w) : 0;

  s.anomaly = 0.75 * s.anomaly + rng.normal(0, 2.5);
  const vertical = site.summitElevation - site.baseElevation;
  const baseMean = normalMeanTemp(site.lat, site.baseElevation, doy) + s.anomaly - (s.wet ? 1 : 0);
  const summitMean = baseMean - (LAPSE_RATE_PER_KM * vertical) / 1000;
  // Mid-mountain: half the vertical above the base, by the same lapse rate and lift.
  const midMean = baseMean - (LAPSE_RATE_PER_KM * vertical) / 2000;
  const range = s.wet ? 5 : 9;

  // Snow where the day is cold enough; the summit catches more (orographic lift).
  const summitPrecip = precipitationMm * (1 + 0.25 * (vertical / 1000));
  const midPrecip = precipitationMm * (1 + 0.25 * (vertical / 2000));
  const snowfallBase = baseMean <= SNOW_MAX_MEAN_C ? precipitationMm * snowRatio(baseMean) : 0;
  const snowfallSummit = summitMean <= SNOW_MAX_MEAN_C ? summitPrecip * snowRatio(summitMean) : 0;
  const snowfallMid = midMean <= SNOW_MAX_MEAN_C ? midPrecip * snowRatio(midMean) : 0;
  const rainBase = snowfallBase > 0 ? 0 : precipitationMm;
  const rainSummit = snowfallSummit > 0 ? 0 : summitPrecip;
  const rainMid = snowfallMid > 0 ? 0 : midPrecip;

  const season = plannedSeason(date, site.lat, site.summitElevation);
  // Snowmaking builds a base from three weeks before opening, on cold nights, up to 60 cm.
  const snowmakingWindow = date >= addDays(season.opens, -21) && date <= season.closes;
  const snowmaking = snowmakingWindow && baseMean - range / 2 <= -2 && s.depthBase < 60 ? 2.5 : 0;

  s.depthBase = pack(s.depthBase, snowfallBase + snowmaking, baseMean, rainBase);
  // Snowmaking covers the trails down from mid-mountain too.
  s.depthMid = pack(s.depthMid, snowfallMid + snowmaking, midMean, rainMid);
  s.depthSummit = pack(s.depthSummit, snowfallSummit, summitMean, rainSummit);
  s.seasonSnow += snowfallSummit;

  const windBase = 6 + 14 * rng.next() ** 2 + (s.wet ? 10 : 0) + 4 * w;
  const windSummit = windBase * 1.7 + 5;
  const gustiness = rng.next();
  // Prevailing westerlies in both hemispheres' mid-latitudes.
  const direction = (((270 + rng.normal(0, 40)) % 360) + 360) % 360;

  return {
    date,
    baseTempMin: r1(baseMean - range / 2),
    baseTempMax: r1(baseMean + range / 2),
    summitTempMin: r1(summitMean - (range * 0.8) / 2),
    summitTempMax: r1(summitMean + (range * 0.8) / 2),
    precipitationMm: r1(precipitationMm),
    precipitationProbability: s.wet ? 100 : 0,
    snowfallBaseCm: r1(snowfallBase),
    snowfallSummitCm: r1(snowfallSummit),
    snowDepthBaseCm: r1(s.depthBase),
    snowDepthSummitCm: r1(s.depthSummit),
    seasonSnowfallCm: r1(s.seasonSnow),
    windSpeedBaseKmh: r1(windBase),
    windGustBaseKmh: r1(windBase * (1.3 + 0.3 * gustiness)),
    windSpeedSummitKmh: r1(windSummit),
    windGustSummitKmh: r1(windSummit * (1.4 + 0.4 * gustiness)),
    windDirectionDeg: Math.round(direction) % 360,
    snowLineM: snowLine(site.baseElevation, baseMean),
    midTempMin: r1(midMean - (range * 0.9) / 2),
    midTempMax: r1(midMean + (range * 0.9) / 2),
    snowfallMidCm: r1(snowfallMid),
    snowDepthMidCm: r1(s.depthMid),
    windSpeedMidKmh: r1((windBase + windSummit) / 2),
    windGustMidKmh: r1(((windBase + windSummit) / 2) * (1.35 + 0.35 * gustiness)),
  };
}

/** Where rain turns to snow: the height at which the day's mean falls to the snow threshold. */
export function snowLine(baseElevationM: number, baseMeanC: number): number {
  return Math.max(0, Math.round(baseElevationM + ((baseMeanC - SNOW_MAX_MEAN_C) / LAPSE_RATE_PER_KM) * 1000));
}

/** Snowpack after one day: settle, add new snow, melt by degree-days, and rain melts a little. */
function pack(depth: number, newSnow: number, meanC: number, rainMm: number): number {
  const melted = MELT_CM_PER_DEGREE_DAY * Math.max(0, meanC) + 0.1 * rainMm;
  return Math.max(0, depth * (1 - SETTLING_PER_DAY) + newSnow - melted);
}

/**
 * A forecast is less sure than an observation: the chance of precipitation drifts from near
 * certainty toward the climatological middle with lead time. Amounts stay those simulated.
 */
function asForecast(day: DailyWeather, leadDays: number, id: string): DailyWeather {
  const confidence = Math.exp(-leadDays / 3);
  const jitter = createRng(`pop:${id}:${day.date}`).next() * 10;
  const pop = day.precipitationMm > 0 ? 55 + 40 * confidence - jitter : 45 - 40 * confidence + jitter;
  return { ...day, precipitationProbability: Math.round(Math.min(100, Math.max(0, pop))) };
}
