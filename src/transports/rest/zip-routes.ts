import { z } from 'zod';
import { CityParams, NearbyParams, StateZipsParams, ZipParams } from '../../validation/params.js';
import { route } from './route.js';
import * as R from './responses.js';
import {
  RestCityDocument,
  RestNearbyDocument,
  RestStatesDocument,
  RestStateZipsDocument,
  RestZipDocument,
  RestZipStatsDocument,
} from './operations/generated.js';

/** The documented ZIP API paths (operations in operations/zip.graphql). */
export const zipRoutes = [
  route({
    freshness: 'static',
    path: '/api/stats',
    summary: 'How many ZIP codes and states the data holds.',
    response: R.ZipStats,
    params: z.object({}),
    operation: RestZipStatsDocument,
    shape: (d) => d.zipStats,
  }),
  route({
    freshness: 'static',
    path: '/api/zip/:zip',
    summary: 'One ZIP code.',
    response: R.ZipRecord,
    params: ZipParams,
    operation: RestZipDocument,
    // Unknown ZIPs are a NOT_FOUND error before any shaping: here the ZIP exists.
    shape: (d) => d.zip!,
  }),
  route({
    freshness: 'static',
    path: '/api/zip/:zip/nearby',
    summary: 'ZIP codes within a radius of a ZIP, nearest first (the ZIP itself excluded).',
    response: R.Nearby,
    params: NearbyParams,
    operation: RestNearbyDocument,
    shape: (d) => d.nearbyZips,
  }),
  route({
    freshness: 'static',
    path: '/api/states',
    summary: 'The 50 states and DC with their ZIP counts.',
    response: R.States,
    params: z.object({}),
    operation: RestStatesDocument,
    shape: (d) => d.states,
  }),
  route({
    freshness: 'static',
    path: '/api/states/:state/zipcodes',
    summary: 'A page of a state’s ZIP codes, in ZIP order.',
    response: R.StateZips,
    params: StateZipsParams,
    operation: RestStateZipsDocument,
    shape: (d, p) => ({
      stateCode: d.state!.stateCode,
      stateName: d.state!.stateName,
      total: d.state!.zipCount,
      limit: p.limit,
      offset: p.offset,
      zipcodes: d.state!.zipcodes!,
    }),
  }),
  route({
    freshness: 'static',
    path: '/api/city/:city',
    summary: 'The ZIP codes of a city, optionally in one state.',
    response: R.City,
    params: CityParams,
    variables: (p) => ({ name: p.city, state: p.state ?? null }),
    operation: RestCityDocument,
    shape: (d) => {
      const { stateCode, ...rest } = d.city!;
      return stateCode ? { city: rest.city, stateCode, count: rest.count, zipcodes: rest.zipcodes } : rest;
    },
  }),
];
