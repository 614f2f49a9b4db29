import { builder, byLimit } from '../builder.js';
import type { StateRecord, ZipRecord } from '../../data/repositories/zips.js';
import { NotFoundError } from '../../lib/errors.js';
import { argsOf } from '../../validation/args.js';
import { CityParams, StatePaging, StateParams, ZIP_BOUNDS } from '../../validation/params.js';
import type { GraphQLContext } from '../context.js';
import { StateRef, ZipRef } from './refs.js';

export { StateRef } from './refs.js';
const CityRef = builder.objectRef<{ city: string; stateCode: string | null; zipcodes: ZipRecord[] }>('City');
const ZipStatsRef = builder.objectRef<{ totalZips: number; totalStates: number }>('ZipStats');

export function loadState(ctx: GraphQLContext, code: string): StateRecord {
  const state = ctx.loaders.state(code);
  if (!state) throw new NotFoundError('State', 'state', code);
  return state;
}

StateRef.implement({
  description: 'One of the 50 US states or DC.',
  fields: (t) => ({
    id: t.id({ description: 'The two-letter USPS code: its identity for client caches.', resolve: (s) => s.stateCode }),
    stateCode: t.exposeString('stateCode', { description: 'Two-letter USPS code.' }),
    stateName: t.exposeString('stateName'),
    fips: t.exposeString('fips', { description: 'Two-digit state FIPS code.' }),
    zipCount: t.exposeInt('zipCount', { description: 'How many ZIP codes the state has (the total for paging).' }),
    zipcodes: t.field({
      type: [ZipRef],
      nullable: true,
      description: 'The state’s ZIP codes in ZIP order, one page.',
      complexity: byLimit(ZIP_BOUNDS.stateLimit.default),
      args: t.validate(
        {
          limit: t.arg.int({ description: `Page size, 1–${ZIP_BOUNDS.stateLimit.max}.`, defaultValue: ZIP_BOUNDS.stateLimit.default }),
          offset: t.arg.int({ description: 'ZIPs to skip, >= 0.', defaultValue: 0 }),
        },
        argsOf(StatePaging),
      ),
      // From the table in memory once it is loaded: a page then resolves in the request's turn.
      resolve: (state, { limit, offset }, ctx) => {
        const key = { stateCode: state.stateCode, limit, offset };
        return ctx.loaders.statePageInMemory(key) ?? ctx.loaders.zipsByState.load(key);
      },
    }),
  }),
});

CityRef.implement({
  description: 'The ZIP codes of a city (a place name may exist in several states).',
  fields: (t) => ({
    id: t.id({
      description:
        'The city name and the state filter it was asked with (e.g. "Springfield|IL", or "Springfield|*" across states): its ZIP list depends on both.',
      resolve: (c) => `${c.city}|${c.stateCode ?? '*'}`,
    }),
    city: t.exposeString('city', { description: 'The city name as the data spells it.' }),
    stateCode: t.exposeString('stateCode', { nullable: true, description: 'The state filter, when one was given.' }),
    count: t.int({ resolve: (c) => c.zipcodes.length }),
    // At least the most ZIPs one city name has over every state (test/unit/list-sizes.test.ts).
    zipcodes: t.expose('zipcodes', { type: [ZipRef], complexity: { field: 1, multiplier: 300 } }),
  }),
});

ZipStatsRef.implement({
  fields: (t) => ({
    totalZips: t.exposeInt('totalZips'),
    totalStates: t.exposeInt('totalStates', { description: '50 states and DC.' }),
  }),
});

builder.queryFields((t) => ({
  states: t.field({
    nullable: true,
    type: [StateRef],
    description: 'The 50 states and DC, by state code.',
    complexity: { field: 1, multiplier: 51 },
    resolve: (_root, _args, ctx) => ctx.repos.zips.allStates(),
  }),
  state: t.field({
    type: StateRef,
    nullable: true,
    description: 'One state by its two-letter code, case-insensitive. Unknown codes are NOT_FOUND.',
    args: t.validate(
      { code: t.arg.string({ required: true, description: 'Two-letter USPS state code, any case (CO, co).' }) },
      argsOf(StateParams, (a: { code: string }) => ({ state: a.code }), { code: 'state' }),
    ),
    resolve: (_root, { state }, ctx) => loadState(ctx, state),
  }),
  city: t.field({
    type: CityRef,
    nullable: true,
    description: 'ZIP codes of a city by name (case-insensitive), optionally in one state. No match is NOT_FOUND.',
    args: t.validate(
      {
        name: t.arg.string({ required: true, description: `1–${ZIP_BOUNDS.cityMaxLength} characters.` }),
        state: t.arg.string({ description: 'Optional two-letter state code.' }),
      },
      argsOf(CityParams, (a: { name: string; state?: string | null }) => ({ city: a.name, state: a.state ?? undefined }), { name: 'city' }),
    ),
    resolve: (_root, { city, state }, ctx) => {
      const zipcodes = ctx.repos.zips.findByCity(city, state ?? null);
      if (zipcodes.length === 0) throw new NotFoundError('City', 'city', state ? `${city}, ${state}` : city);
      return { city: zipcodes[0]!.city, stateCode: state ?? null, zipcodes };
    },
  }),
  zipStats: t.field({
    nullable: true,
    type: ZipStatsRef,
    description: 'How many ZIP codes and states the data holds (the 50 states and DC).',
    resolve: (_root, _args, ctx) => ctx.repos.zips.stats(),
  }),
}));
