import { z } from 'zod';
import { CityParams, NearbyParams, StateZipsParams, ZipParams } from '../validation/params.js';
import { route } from './route.js';

const ZIP_FIELDS = 'zip city stateCode stateName county countyFips lat lng lastUpdated';

/** The documented ZIP API paths. */
export const zipRoutes = [
  route({
    freshness: 'static',
    path: '/api/stats',
    params: z.object({}),
    operation: 'query ZipStats { zipStats { totalZips totalStates } }',
    shape: (d) => d.zipStats,
  }),
  route({
    freshness: 'static',
    path: '/api/zip/:zip',
    params: ZipParams,
    operation: `query Zip($zip: String!) { zip(zip: $zip) { ${ZIP_FIELDS} } }`,
    shape: (d) => d.zip,
  }),
  route({
    freshness: 'static',
    path: '/api/zip/:zip/nearby',
    params: NearbyParams,
    operation: `query Nearby($zip: String!, $radiusMiles: Float, $limit: Int) {
      nearbyZips(zip: $zip, radiusMiles: $radiusMiles, limit: $limit) {
        center { zip lat lng } radiusMiles results { zip city stateCode county lat lng distanceMiles }
      } }`,
    shape: (d) => d.nearbyZips,
  }),
  route({
    freshness: 'static',
    path: '/api/states',
    params: z.object({}),
    operation: 'query States { states { stateCode stateName zipCount } }',
    shape: (d) => d.states,
  }),
  route({
    freshness: 'static',
    path: '/api/states/:state/zipcodes',
    params: StateZipsParams,
    operation: `query StateZips($state: String!, $limit: Int, $offset: Int) {
      state(code: $state) { stateCode stateName zipCount zipcodes(limit: $limit, offset: $offset) { ${ZIP_FIELDS} } } }`,
    shape: (d, p) => ({
      stateCode: d.state.stateCode,
      stateName: d.state.stateName,
      total: d.state.zipCount,
      limit: p.limit,
      offset: p.offset,
      zipcodes: d.state.zipcodes,
    }),
  }),
  route({
    freshness: 'static',
    path: '/api/city/:city',
    params: CityParams,
    variables: (p) => ({ name: p.city, state: p.state ?? null }),
    operation: `query City($name: String!, $state: String) {
      city(name: $name, state: $state) { city stateCode count zipcodes { ${ZIP_FIELDS} } } }`,
    shape: (d) => {
      const { stateCode, ...rest } = d.city;
      return stateCode ? { city: rest.city, stateCode, count: rest.count, zipcodes: rest.zipcodes } : rest;
    },
  }),
];
