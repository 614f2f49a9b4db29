import { z } from 'zod';
import { CityParams, NearbyParams, StateZipsParams, ZipParams } from '../validation/params.js';
import { route } from './route.js';
import { RestCityDocument, RestNearbyDocument, RestStatesDocument, RestStateZipsDocument, RestZipDocument, RestZipStatsDocument } from './operations/generated.js';

/** The documented ZIP API paths (operations in operations/zip.graphql). */
export const zipRoutes = [
  route({
    freshness: 'static',
    path: '/api/stats',
    params: z.object({}),
    operation: RestZipStatsDocument,
    shape: (d) => d.zipStats,
  }),
  route({
    freshness: 'static',
    path: '/api/zip/:zip',
    params: ZipParams,
    operation: RestZipDocument,
    shape: (d) => d.zip,
  }),
  route({
    freshness: 'static',
    path: '/api/zip/:zip/nearby',
    params: NearbyParams,
    operation: RestNearbyDocument,
    shape: (d) => d.nearbyZips,
  }),
  route({
    freshness: 'static',
    path: '/api/states',
    params: z.object({}),
    operation: RestStatesDocument,
    shape: (d) => d.states,
  }),
  route({
    freshness: 'static',
    path: '/api/states/:state/zipcodes',
    params: StateZipsParams,
    operation: RestStateZipsDocument,
    shape: (d, p) => ({
      stateCode: d.state!.stateCode,
      stateName: d.state!.stateName,
      total: d.state!.zipCount,
      limit: p.limit,
      offset: p.offset,
      zipcodes: d.state!.zipcodes,
    }),
  }),
  route({
    freshness: 'static',
    path: '/api/city/:city',
    params: CityParams,
    variables: (p) => ({ name: p.city, state: p.state ?? null }),
    operation: RestCityDocument,
    shape: (d) => {
      const { stateCode, ...rest } = d.city!;
      return stateCode ? { city: rest.city, stateCode, count: rest.count, zipcodes: rest.zipcodes } : rest;
    },
  }),
];
