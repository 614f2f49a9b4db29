import { builder } from '../builder.js';
import type { HistoryDay, Deviation, TemperatureDeviation } from '../../domain/history.js';
import type { HistoryResult } from '../../history/service.js';
import { localDate } from '../../domain/local-time.js';
import { toUnits, UNIT_LABELS, type Units } from '../../domain/units.js';
import { TimeoutError, UpstreamFailedError } from '../../lib/errors.js';
import { UpstreamError } from '../../providers/upstream.js';
import { argsOf } from '../../validation/args.js';
import { HISTORY_BOUNDS, HistoryParams } from '../../validation/resort-params.js';
import { ResortRef } from './resort.js';
import { UnitLabelsRef, unitsArg } from './units.js';

type WithUnits<T> = T & { units: Units };

const convertDay = (d: HistoryDay, u: Units) => ({
  date: d.date,
  snowfall: toUnits.depth(d.snowfallCm, u),
  precipitation: toUnits.precipitation(d.precipitationMm, u),
  snowDepth: toUnits.depth(d.snowDepthCm, u),
  tempMin: toUnits.temperature(d.tempMinC, u),
  tempMax: toUnits.temperature(d.tempMaxC, u),
});

const MeasuresRef = builder.objectRef<ReturnType<typeof convertDay>>('HistoryValues').implement({
  description: 'Snowfall and precipitation are totals (per day, or over the window); snow depth and temperatures are means.',
  fields: (t) => ({
    snowfall: t.exposeFloat('snowfall'),
    precipitation: t.exposeFloat('precipitation'),
    snowDepth: t.exposeFloat('snowDepth'),
    tempMin: t.exposeFloat('tempMin'),
    tempMax: t.exposeFloat('tempMax'),
  }),
});

const HistoryDayRef = builder.objectRef<WithUnits<{ day: HistoryDay; baseline: HistoryDay }>>('HistoryDay').implement({
  fields: (t) => ({
    date: t.field({ type: 'Date', resolve: (d) => d.day.date }),
    values: t.field({ type: MeasuresRef, resolve: (d) => convertDay(d.day, d.units) }),
    baseline: t.field({
      type: MeasuresRef,
      description: 'The same calendar day averaged over the baseline years.',
      resolve: (d) => convertDay(d.baseline, d.units),
    }),
  }),
});

const DeviationRef = builder.objectRef<Deviation>('Deviation').implement({
  fields: (t) => ({
    absolute: t.exposeFloat('absolute', { description: 'Window minus baseline, in the units of the measure.' }),
    percent: t.exposeFloat('percent', { nullable: true, description: 'Relative to the baseline’s magnitude; null when the baseline is zero.' }),
  }),
});

const TemperatureDeviationRef = builder.objectRef<TemperatureDeviation>('TemperatureDeviation').implement({
  description: 'A temperature difference, in degrees only (a percentage of a temperature means nothing).',
  fields: (t) => ({
    absolute: t.exposeFloat('absolute', { description: 'Window minus baseline, in degrees of the units asked for.' }),
  }),
});

const DeviationsRef = builder.objectRef<WithUnits<HistoryResult['deviation']>>('Deviations').implement({
  fields: (t) => {
    // Differences convert without an offset: a 1 °C difference is 1.8 °F.
    const depth = (d: Deviation, u: Units) => ({ ...d, absolute: toUnits.depth(d.absolute, u) });
    const precip = (d: Deviation, u: Units) => ({ ...d, absolute: toUnits.precipitation(d.absolute, u) });
    const temp = (d: TemperatureDeviation, u: Units) => ({ absolute: u === 'METRIC' ? d.absolute : Math.round(d.absolute * 18) / 10 });
    return {
      snowfall: t.field({ type: DeviationRef, resolve: (x) => depth(x.snowfall, x.units) }),
      precipitation: t.field({ type: DeviationRef, resolve: (x) => precip(x.precipitation, x.units) }),
      snowDepth: t.field({ type: DeviationRef, resolve: (x) => depth(x.snowDepth, x.units) }),
      tempMin: t.field({ type: TemperatureDeviationRef, resolve: (x) => temp(x.tempMin, x.units) }),
      tempMax: t.field({ type: TemperatureDeviationRef, resolve: (x) => temp(x.tempMax, x.units) }),
    };
  },
});

const HistoryParamsRef = builder.objectRef<HistoryResult['parameters']>('HistoryParameters').implement({
  fields: (t) => ({ days: t.exposeInt('days'), years: t.exposeInt('years'), radiusKm: t.exposeFloat('radiusKm') }),
});

const PointRef = builder.objectRef<{ lat: number; lng: number }>('SamplePoint').implement({
  fields: (t) => ({ lat: t.exposeFloat('lat'), lng: t.exposeFloat('lng') }),
});

const HistoryRef = builder.objectRef<WithUnits<HistoryResult>>('History').implement({
  description:
    'The last `days` days against the same calendar window in the previous `years` years, at the base elevation, averaged over the resort and six points on a circle of `radiusKm`.',
  fields: (t) => ({
    provider: t.exposeString('provider'),
    parameters: t.expose('parameters', { type: HistoryParamsRef }),
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    units: t.field({ type: UnitLabelsRef, resolve: (h) => UNIT_LABELS[h.units] }),
    points: t.expose('points', { type: [PointRef] }),
    daily: t.field({
      type: [HistoryDayRef],
      complexity: { field: 1, multiplier: HISTORY_BOUNDS.days.max },
      resolve: (h) => h.daily.map((d) => ({ ...d, units: h.units })),
    }),
    current: t.field({
      type: MeasuresRef,
      description: 'The window: totals and means.',
      resolve: (h) =>
        convertDay(
          {
            date: h.to,
            snowfallCm: h.current.snowfall,
            precipitationMm: h.current.precipitation,
            snowDepthCm: h.current.snowDepth,
            tempMinC: h.current.tempMin,
            tempMaxC: h.current.tempMax,
          },
          h.units,
        ),
    }),
    baseline: t.field({
      type: MeasuresRef,
      resolve: (h) =>
        convertDay(
          {
            date: h.to,
            snowfallCm: h.baseline.snowfall,
            precipitationMm: h.baseline.precipitation,
            snowDepthCm: h.baseline.snowDepth,
            tempMinC: h.baseline.tempMin,
            tempMaxC: h.baseline.tempMax,
          },
          h.units,
        ),
    }),
    deviation: t.field({ type: DeviationsRef, resolve: (h) => ({ ...h.deviation, units: h.units }) }),
  }),
});

/** Sample points a baseline averages: the resort and six around it. */
export const SAMPLE_POINTS = 7;

/** The cost of one resort's history: days × (the window + each baseline year) × sample points, arguments clamped to their bounds. */
export function historyCost(args: { days?: number | null; years?: number | null }): number {
  const clamp = (v: number | null | undefined, b: { min: number; max: number; default: number }) =>
    typeof v === 'number' && Number.isFinite(v) ? Math.min(b.max, Math.max(b.min, Math.trunc(v))) : b.default;
  return clamp(args.days, HISTORY_BOUNDS.days) * (clamp(args.years, HISTORY_BOUNDS.years) + 1) * SAMPLE_POINTS;
}

builder.objectField(ResortRef, 'history', (t) =>
  t.field({
    type: HistoryRef,
    // A provider failure or a time-out nulls this field only, never the resort or its siblings.
    nullable: true,
    description: `Historical baseline. days ${HISTORY_BOUNDS.days.min}–${HISTORY_BOUNDS.days.max} (default ${HISTORY_BOUNDS.days.default}), years ${HISTORY_BOUNDS.years.min}–${HISTORY_BOUNDS.years.max} (default ${HISTORY_BOUNDS.years.default}), radiusKm ${HISTORY_BOUNDS.radiusKm.min}–${HISTORY_BOUNDS.radiusKm.max} (default ${HISTORY_BOUNDS.radiusKm.default}). Costs days × (years + 1) × 7 sample points. A provider failure is UPSTREAM_FAILED; past the request deadline, TIMEOUT.`,
    // What it computes: every sample point, every day of the window, in every year asked for.
    complexity: (args) => ({ field: historyCost(args), multiplier: 1 }),
    args: t.validate(
      {
        days: t.arg.int({
          description: `Days of history, ending today: ${HISTORY_BOUNDS.days.min}–${HISTORY_BOUNDS.days.max}.`,
          defaultValue: HISTORY_BOUNDS.days.default,
        }),
        years: t.arg.int({
          description: `Previous years the same calendar window is compared with: ${HISTORY_BOUNDS.years.min}–${HISTORY_BOUNDS.years.max}.`,
          defaultValue: HISTORY_BOUNDS.years.default,
        }),
        radiusKm: t.arg.float({
          description: `Radius around the resort of the 7 sample points, km: ${HISTORY_BOUNDS.radiusKm.min}–${HISTORY_BOUNDS.radiusKm.max}.`,
          defaultValue: HISTORY_BOUNDS.radiusKm.default,
        }),
        units: t.arg(unitsArg),
      },
      argsOf(HistoryParams),
    ),
    resolve: async (resort, p, ctx) => {
      try {
        const result = await ctx.history.get(
          resort,
          { days: p.days, years: p.years, radiusKm: p.radiusKm },
          localDate(ctx.now(), resort.timezone, ctx.repos.zoneOffsets.of(resort.timezone)),
          { signal: ctx.signal, deadline: ctx.deadline, providers: ctx.providers },
        );
        return { ...result, units: p.units };
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        // Cancelled: the request's deadline passed (or its client left); anything else is the provider's.
        if (err.failure === 'cancelled') throw new TimeoutError();
        ctx.logger.warn({ provider: err.provider, cause: err.message, resort: resort.id }, 'history lookup failed');
        throw new UpstreamFailedError(err.provider);
      }
    },
  }),
);
