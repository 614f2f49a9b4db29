import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import type { ResortSnapshot } from '../../data/snapshots/snapshot.js';
import type { ResortRecord } from '../../data/repositories/resorts.js';
import { addDays } from '../../domain/dates.js';
import { compareNames } from '../../domain/fold.js';
import { stormOutlookView } from '../../data/snapshots/views.js';
import { networkSnow, openNow, openTrailsPct, STORM_WATCH_MIN_CM, stormWatch, topSnow, type NetworkSnow, type ResortSnowTotal } from '../../domain/rankings.js';
import { toUnits, UNIT_LABELS, type Units } from '../../domain/units.js';
import { argsOf } from '../../validation/args.js';
import { InsightsParams, OpenNowParams, RankingParams, RESORT_BOUNDS } from '../../validation/resort-params.js';
import { ResortRef } from './resort.js';
import { SnowSurfaceEnum } from './conditions.js';
import { UnitLabelsRef, unitsArg } from './units.js';

/** Every resort's snapshot, in one batch per loader (the resort rows primed from one scan). */
async function allSnapshots(ctx: GraphQLContext): Promise<ResortSnapshot<ResortRecord>[]> {
  const resorts = ctx.repos.resorts.all();
  for (const r of resorts) ctx.loaders.resortById.prime(r.id, r);
  const snaps = await ctx.loaders.snapshotByResort.loadMany(resorts.map((r) => r.id));
  return snaps.map((s) => {
    if (s instanceof Error) throw s;
    return s;
  });
}

interface Entry {
  rank: number;
  snap: ResortSnapshot<ResortRecord>;
  units: Units;
}

const TopSnowEntryRef = builder.objectRef<Entry>('TopSnowEntry').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    resort: t.field({ type: ResortRef, resolve: (e) => e.snap.resort }),
    newSnow24h: t.float({ resolve: (e) => toUnits.depth(e.snap.report.newSnow24hCm, e.units) }),
    newSnow72h: t.float({ resolve: (e) => toUnits.depth(e.snap.report.newSnow72hCm, e.units) }),
    snowDepthSummit: t.float({ resolve: (e) => toUnits.depth(e.snap.report.snowDepthSummitCm, e.units) }),
    surface: t.field({ type: SnowSurfaceEnum, resolve: (e) => e.snap.report.surface }),
  }),
});

const OpenNowEntryRef = builder.objectRef<Entry>('OpenNowEntry').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    resort: t.field({ type: ResortRef, resolve: (e) => e.snap.resort }),
    openTrailsPct: t.float({ resolve: (e) => openTrailsPct(e.snap.report) }),
    openTrails: t.int({ resolve: (e) => e.snap.report.openTrails }),
    totalTrails: t.int({ resolve: (e) => e.snap.report.totalTrails }),
    openLifts: t.int({ resolve: (e) => e.snap.report.openLifts }),
    totalLifts: t.int({ resolve: (e) => e.snap.report.totalLifts }),
    snowDepthBase: t.float({ resolve: (e) => toUnits.depth(e.snap.report.snowDepthBaseCm, e.units) }),
  }),
});

const StormWatchEntryRef = builder.objectRef<Entry>('StormWatchEntry').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    resort: t.field({ type: ResortRef, resolve: (e) => e.snap.resort }),
    snowfall48h: t.float({
      description: 'Forecast summit snowfall in the 48 hours from now (the resort’s current hour on).',
      resolve: (e) => toUnits.depth(stormOutlookView(e.snap).snowfall48hCm, e.units),
    }),
    peakDate: t.field({ type: 'Date', resolve: (e) => stormOutlookView(e.snap).peakDate }),
    peakSnowfall: t.float({ resolve: (e) => toUnits.depth(stormOutlookView(e.snap).peakSnowfallCm, e.units) }),
  }),
});

const TopSnowRef = builder.objectRef<{ units: Units; entries: Entry[] }>('TopSnow').implement({
  description: 'Resorts with snow in the last 72 h, by 24 h snowfall, then 72 h (summit), then name.',
  fields: (t) => ({
    units: t.field({ type: UnitLabelsRef, resolve: (x) => UNIT_LABELS[x.units] }),
    resorts: t.field({ type: [TopSnowEntryRef], complexity: { field: 1, multiplier: RESORT_BOUNDS.rankingLimit.max }, resolve: (x) => x.entries }),
  }),
});

const OpenNowRef = builder.objectRef<{ units: Units; minOpenTrailsPct: number; entries: Entry[] }>('OpenNow').implement({
  description: 'Operating resorts whose open-trail share is at least the minimum, most open first.',
  fields: (t) => ({
    minOpenTrailsPct: t.exposeFloat('minOpenTrailsPct'),
    count: t.int({ resolve: (x) => x.entries.length }),
    units: t.field({ type: UnitLabelsRef, resolve: (x) => UNIT_LABELS[x.units] }),
    resorts: t.field({ type: [OpenNowEntryRef], complexity: { field: 1, multiplier: 250 }, resolve: (x) => x.entries }),
  }),
});

const StormWatchRef = builder.objectRef<{ units: Units; entries: Entry[] }>('StormWatch').implement({
  description: `Resorts forecast to get at least ${STORM_WATCH_MIN_CM} cm (${Math.round(STORM_WATCH_MIN_CM / 2.54)} in) at the summit in the next 48 hours (from the current hour), most first.`,
  fields: (t) => ({
    threshold48h: t.float({ description: 'The storm threshold, in the depth unit.', resolve: (x) => toUnits.depth(STORM_WATCH_MIN_CM, x.units) }),
    units: t.field({ type: UnitLabelsRef, resolve: (x) => UNIT_LABELS[x.units] }),
    resorts: t.field({ type: [StormWatchEntryRef], complexity: { field: 1, multiplier: RESORT_BOUNDS.rankingLimit.max }, resolve: (x) => x.entries }),
  }),
});

interface Insight {
  total: ResortSnowTotal;
  resort: ResortRecord;
  days: number;
  units: Units;
}

const ResortSnowTotalRef = builder.objectRef<Insight>('ResortSnowTotal').implement({
  fields: (t) => ({
    resort: t.expose('resort', { type: ResortRef }),
    totalSnowfall: t.float({ resolve: (i) => toUnits.depth(i.total.totalCm, i.units) }),
    averagePerDay: t.float({ resolve: (i) => toUnits.depth(i.total.totalCm / i.days, i.units) }),
    maxDaySnowfall: t.float({ resolve: (i) => toUnits.depth(i.total.maxDayCm, i.units) }),
    maxDayDate: t.field({
      type: 'Date',
      nullable: true,
      description: 'The snowiest day (earliest on ties); null without snow.',
      resolve: (i) => (i.total.maxDayCm > 0 ? i.total.maxDayDate : null),
    }),
  }),
});

const NetworkSnowRef = builder.objectRef<NetworkSnow & { units: Units }>('NetworkSnow').implement({
  description: 'Averages over every resort in the catalogue.',
  fields: (t) => ({
    resorts: t.exposeInt('resorts'),
    resortsWithSnow: t.exposeInt('resortsWithSnow'),
    averageSnowfall: t.float({ description: 'Mean total per resort over the window.', resolve: (n) => toUnits.depth(n.averageTotalCm, n.units) }),
    averagePerDay: t.float({ resolve: (n) => toUnits.depth(n.averagePerDayCm, n.units) }),
    maxSnowfall: t.float({ description: 'The largest resort total.', resolve: (n) => toUnits.depth(n.maxTotalCm, n.units) }),
  }),
});

const SnowInsightsRef = builder
  .objectRef<{ days: number; from: string; to: string; units: Units; network: NetworkSnow; totals: Insight[] }>('SnowInsights')
  .implement({
    description:
      'Rolling summit snowfall per resort over the last `days` days (today included), most first. The network spans every time zone, so these days are UTC calendar days.',
    fields: (t) => ({
      days: t.exposeInt('days'),
      from: t.exposeString('from'),
      to: t.exposeString('to'),
      units: t.field({ type: UnitLabelsRef, resolve: (x) => UNIT_LABELS[x.units] }),
      network: t.field({ type: NetworkSnowRef, resolve: (x) => ({ ...x.network, units: x.units }) }),
      resorts: t.field({ type: [ResortSnowTotalRef], complexity: { field: 1, multiplier: 250 }, resolve: (x) => x.totals }),
    }),
  });

const rank =
  (units: Units) =>
  (snap: ResortSnapshot<ResortRecord>, i: number): Entry => ({ rank: i + 1, snap, units });

builder.queryFields((t) => ({
  topSnow: t.field({
    nullable: true,
    description: 'Resorts with snow in the last 72 hours, the most 24-hour snowfall first.',
    type: TopSnowRef,
    args: t.validate(
      {
        limit: t.arg.int({ description: `Most resorts to return, 1–${RESORT_BOUNDS.rankingLimit.max}.`, defaultValue: RESORT_BOUNDS.rankingLimit.default }),
        units: t.arg(unitsArg),
      },
      argsOf(RankingParams),
    ),
    resolve: async (_root, { limit, units }, ctx) => {
      const snaps = await allSnapshots(ctx);
      const ranked = topSnow(
        snaps.map((s) => ({ resort: s.resort, report: s.report, s })),
        limit,
      );
      return { units, entries: ranked.map((r) => r.s).map(rank(units)) };
    },
  }),
  openNow: t.field({
    nullable: true,
    description: 'Operating resorts with at least this share of their trails open, the most open first.',
    type: OpenNowRef,
    args: t.validate(
      {
        minOpenTrailsPct: t.arg.float({ description: 'Least share of trails open, percent: 0–100.', defaultValue: RESORT_BOUNDS.minOpenTrailsPct.default }),
        units: t.arg(unitsArg),
      },
      argsOf(OpenNowParams),
    ),
    resolve: async (_root, { minOpenTrailsPct, units }, ctx) => {
      const snaps = await allSnapshots(ctx);
      const ranked = openNow(
        snaps.map((s) => ({ resort: s.resort, report: s.report, s })),
        minOpenTrailsPct,
      );
      return { units, minOpenTrailsPct, entries: ranked.map((r) => r.s).map(rank(units)) };
    },
  }),
  stormWatch: t.field({
    nullable: true,
    description: `Resorts forecast to get at least ${STORM_WATCH_MIN_CM} cm at the summit in the next 48 hours, the most first.`,
    type: StormWatchRef,
    args: t.validate(
      {
        limit: t.arg.int({ description: `Most resorts to return, 1–${RESORT_BOUNDS.rankingLimit.max}.`, defaultValue: RESORT_BOUNDS.rankingLimit.default }),
        units: t.arg(unitsArg),
      },
      argsOf(RankingParams),
    ),
    resolve: async (_root, { limit, units }, ctx) => {
      const snaps = await allSnapshots(ctx);
      const ranked = stormWatch(
        snaps.map((s) => ({ resort: s.resort, outlook: stormOutlookView(s), s })),
        limit,
      );
      return { units, entries: ranked.map((r) => r.s).map(rank(units)) };
    },
  }),
  snowInsights: t.field({
    nullable: true,
    description: "Summit snowfall per resort over the last days, the most first, and the network's averages.",
    type: SnowInsightsRef,
    args: t.validate(
      {
        days: t.arg.int({
          description: `Days back from today, today included: 1–${RESORT_BOUNDS.insightsDays.max}.`,
          defaultValue: RESORT_BOUNDS.insightsDays.default,
        }),
        units: t.arg(unitsArg),
      },
      argsOf(InsightsParams),
    ),
    resolve: async (_root, { days, units }, ctx) => {
      const to = await ctx.weatherWindow.ensureCurrent();
      const from = addDays(to, -(days - 1));
      const resorts = new Map(ctx.repos.resorts.all().map((r) => [r.id, r]));
      const totals = ctx.repos.weather.snowfallTotals(from, to).filter((x) => resorts.has(x.resortId));
      const insights = totals
        .map((total) => ({ total, resort: resorts.get(total.resortId)!, days, units }))
        .sort((a, b) => b.total.totalCm - a.total.totalCm || compareNames(a.resort.name, b.resort.name));
      return { days, from, to, units, network: networkSnow(totals, days), totals: insights };
    },
  }),
}));
