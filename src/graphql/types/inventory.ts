import { builder } from '../builder.js';
import type { ServedLift, ServedTrail } from '../../data/snapshots/snapshot.js';
import { toUnits, type Units } from '../../domain/units.js';
import type { liftSummaryView, trailSummaryView } from '../../data/snapshots/views.js';
import { UnitsEnum } from './units.js';
import { DIFFICULTIES, LIFT_TYPES } from '../../domain/resort.js';
import { GROOMING_STATUSES, LIFT_STATUSES, TRAIL_STATUSES } from '../../domain/conditions.js';

export const DifficultyEnum = builder.enumType('Difficulty', {
  description: 'Common grade; `rating` on a trail gives the regional marking (green-circle … double-black-diamond in North America, blue/red/black in Europe).',
  values: DIFFICULTIES,
});
export const TrailStatusEnum = builder.enumType('TrailStatus', { values: TRAIL_STATUSES });
export const GroomingEnum = builder.enumType('Grooming', { values: GROOMING_STATUSES });
export const LiftTypeEnum = builder.enumType('LiftType', {
  description: 'UNKNOWN where a live feed names a lift without saying what it is.',
  values: LIFT_TYPES,
});
export const LiftStatusEnum = builder.enumType('LiftStatus', {
  description: 'OPEN; HOLD: stopped for wind; SCHEDULED: opens as cover builds or later today; CLOSED.',
  values: LIFT_STATUSES,
});

export type TrailView = ServedTrail & { units: Units };
export type LiftView = ServedLift;

export const TrailRef = builder.objectRef<TrailView>('Trail').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    difficulty: t.expose('difficulty', { type: DifficultyEnum }),
    rating: t.exposeString('rating', { description: 'The regional marking, e.g. black-diamond or red.' }),
    length: t.int({
      description:
        'Length in m (METRIC) or ft (IMPERIAL). Without `units`, in the units of the deprecated `Resort.trails(units:)`: a normalized client cache keeps one value per trail and field arguments, so ask here.',
      args: { units: t.arg({ type: UnitsEnum, required: false, description: 'The unit of this length; METRIC unless asked otherwise.' }) },
      resolve: (x, { units }) => toUnits.length(x.lengthM, units ?? x.units),
    }),
    status: t.expose('status', { type: TrailStatusEnum }),
    grooming: t.expose('grooming', { type: GroomingEnum }),
    source: t.exposeString('source', { description: '"generated" where no real inventory is held.' }),
  }),
});

export const LiftRef = builder.objectRef<LiftView>('Lift').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    type: t.expose('type', { type: LiftTypeEnum }),
    seats: t.exposeInt('seats', { nullable: true, description: 'Seats per chair or cabin (1 for surface lifts); null when unknown.' }),
    capacityPerHour: t.exposeInt('capacityPerHour', { nullable: true, description: 'Persons per hour; null when unknown.' }),
    status: t.expose('status', { type: LiftStatusEnum }),
    source: t.exposeString('source', { description: '"generated", or "liftie" for live status.' }),
  }),
});

type TrailSummary = ReturnType<typeof trailSummaryView>;
type LiftSummary = ReturnType<typeof liftSummaryView>;

const DifficultyCountRef = builder.objectRef<TrailSummary['byDifficulty'][number]>('DifficultyCount').implement({
  fields: (t) => ({
    difficulty: t.expose('difficulty', { type: DifficultyEnum }),
    total: t.exposeInt('total'),
    open: t.exposeInt('open'),
  }),
});
const TrailStatusCountRef = builder.objectRef<TrailSummary['byStatus'][number]>('TrailStatusCount').implement({
  fields: (t) => ({ status: t.expose('status', { type: TrailStatusEnum }), count: t.exposeInt('count') }),
});
const LiftTypeCountRef = builder.objectRef<LiftSummary['byType'][number]>('LiftTypeCount').implement({
  fields: (t) => ({
    type: t.expose('type', { type: LiftTypeEnum }),
    total: t.exposeInt('total'),
    open: t.exposeInt('open'),
  }),
});
const LiftStatusCountRef = builder.objectRef<LiftSummary['byStatus'][number]>('LiftStatusCount').implement({
  fields: (t) => ({ status: t.expose('status', { type: LiftStatusEnum }), count: t.exposeInt('count') }),
});

export const TrailSummaryRef = builder.objectRef<TrailSummary>('TrailSummary').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    open: t.exposeInt('open'),
    groomed: t.exposeInt('groomed'),
    byDifficulty: t.expose('byDifficulty', { type: [DifficultyCountRef] }),
    byStatus: t.expose('byStatus', { type: [TrailStatusCountRef] }),
  }),
});

export const LiftSummaryRef = builder.objectRef<LiftSummary>('LiftSummary').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    open: t.exposeInt('open'),
    openCapacityPerHour: t.exposeInt('openCapacityPerHour', { description: 'Persons per hour the open lifts can carry.' }),
    byType: t.expose('byType', { type: [LiftTypeCountRef], description: 'Lift types present, with how many are open.' }),
    byStatus: t.expose('byStatus', { type: [LiftStatusCountRef] }),
  }),
});

export { UnitsEnum };
