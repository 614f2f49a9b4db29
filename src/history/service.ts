import { LRUCache } from 'lru-cache';
import { addDays } from '../domain/dates.js';
import {
  averageSeries,
  deviations,
  samplePoints,
  summarize,
  windowDates,
  yearsBefore,
  type Deviations,
  type HistoryDay,
  type Summary,
} from '../domain/history.js';
import type { ResortFacts } from '../domain/resort.js';
import type { HistoryProvider } from '../providers/provider.js';
import { UpstreamError, type CallBounds } from '../providers/upstream.js';

export interface HistoryParameters {
  days: number;
  years: number;
  radiusKm: number;
}

export interface HistoryResult {
  provider: string;
  parameters: HistoryParameters;
  from: string;
  to: string;
  points: { lat: number; lng: number }[];
  daily: { day: HistoryDay; baseline: HistoryDay }[];
  current: Summary;
  baseline: Summary;
  deviation: Deviations;
}

/**
 * What a kept result holds per day of its window (the day and its baseline, each a record of five
 * numbers and a date, and the pair), counted generously (BENCHMARKS.md, design figures: history results).
 */
const BYTES_PER_DAY = 500;
const BYTES_PER_RESULT = 4096;

/** Bytes of results the service keeps by default: ~90 of the largest window (90 days). */
export const HISTORY_CACHE_BYTES = 4 * 1024 * 1024;

/**
 * The historical baseline of a resort: the window's days and the same calendar window in each
 * of the previous years, averaged over the resort and a ring of points around it. Results are
 * cached per resort, parameters and day (a failed lookup is not cached), least recently used
 * first out, bounded in bytes: a client varying the radius on every request (each a new key)
 * cannot hold more than `maxBytes`.
 */
export class HistoryService {
  private readonly cache: LRUCache<string, Promise<HistoryResult>>;

  constructor(
    private readonly provider: HistoryProvider,
    maxBytes = HISTORY_CACHE_BYTES,
  ) {
    this.cache = new LRUCache({ maxSize: maxBytes });
  }

  /** Results kept now, and the bytes they are counted as. */
  get kept(): { results: number; bytes: number } {
    return { results: this.cache.size, bytes: this.cache.calculatedSize };
  }

  /**
   * The baseline, computed once per resort, parameters and day. A computation is bounded by the
   * request that started it (its deadline and abort signal); a failed or cancelled one is dropped.
   */
  get(resort: ResortFacts, p: HistoryParameters, today: string, bounds: CallBounds = {}): Promise<HistoryResult> {
    const key = `${resort.id}|${p.days}|${p.years}|${p.radiusKm}|${today}`;
    let hit = this.cache.get(key);
    if (!hit) {
      const made = this.compute(resort, p, today, bounds);
      this.cache.set(key, made, { size: BYTES_PER_RESULT + BYTES_PER_DAY * p.days });
      made.catch(() => {
        if (this.cache.peek(key) === made) this.cache.delete(key);
      });
      hit = made;
    }
    return hit;
  }

  private async compute(resort: ResortFacts, p: HistoryParameters, today: string, bounds: CallBounds): Promise<HistoryResult> {
    const points = samplePoints(resort.lat, resort.lng, p.radiusKm);
    const dates = windowDates(today, p.days);
    const from = dates[0]!;
    const aligned = (series: HistoryDay[][], start: string) => {
      // Index-aligned days from `start`; a provider that returns fewer is not to be trusted.
      for (const s of series) {
        if (s.length !== p.days || s[0]?.date !== start) {
          throw new UpstreamError(this.provider.name, 'malformed response', `expected ${p.days} days from ${start}, got ${s.length}`);
        }
      }
      return series;
    };
    const [current, ...past] = await Promise.all([
      this.provider.history(resort, points, from, today, true, bounds).then((s) => aligned(s, from)),
      ...Array.from({ length: p.years }, (_, i) => {
        const start = yearsBefore(from, i + 1);
        return this.provider.history(resort, points, start, addDays(start, p.days - 1), false, bounds).then((s) => aligned(s, start));
      }),
    ]);
    const window = averageSeries(current!, dates);
    const yearly = past.map((series) => averageSeries(series, dates));
    const baselineDays = averageSeries(yearly, dates);
    const currentSummary = summarize(window);
    const baselineSummary = summarize(baselineDays);
    return {
      provider: this.provider.name,
      parameters: p,
      from,
      to: today,
      points,
      daily: window.map((day, i) => ({ day, baseline: baselineDays[i]! })),
      current: currentSummary,
      baseline: baselineSummary,
      deviation: deviations(currentSummary, baselineSummary),
    };
  }
}
