import { z } from 'zod';
import { CityParams, NearbyParams, offsetVariable, StateZipsParams, ZipParams } from '../../validation/params.js';
import { ZipCodesParams, ZipDistanceParams, ZipsNearParams } from '../../validation/lookup-params.js';
import { route } from './route.js';
import * as R from './responses.js';
import {
  RestCityDocument,
  RestNearbyDocument,
  RestStatesDocument,
  RestStateZipsDocument,
  RestZipDocument,
  RestZipDistanceDocument,
  RestZipsDocument,
  RestZipsNearDocument,
  RestZipStatsDocument,
} from './operations/generated.js';

/** Each code once, in the order first asked. */
const unique = (codes: readonly string[]) => [...new Set(codes)];

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
    list: 'results',
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
    variables: (p) => ({ ...p, offset: offsetVariable(p.offset) }),
    operation: RestStateZipsDocument,
    shape: (d, p) => ({
      stateCode: d.state!.stateCode,
      stateName: d.state!.stateName,
      total: d.state!.zipCount,
      limit: p.limit,
      offset: p.offset,
      zipcodes: d.state!.zipcodes!,
    }),
    list: 'zipcodes',
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
    list: 'zipcodes',
  }),
  route({
    freshness: 'static',
    path: '/api/zip/:from/distance/:to',
    summary: 'The great-circle distance between two ZIP codes (their centroids), in miles and kilometres.',
    response: R.ZipDistance,
    params: ZipDistanceParams,
    operation: RestZipDistanceDocument,
    shape: (d) => d.zipDistance,
  }),
  route({
    freshness: 'static',
    path: '/api/zips',
    summary: 'Up to 100 ZIP codes at once (codes=90210,05401,…), in the order asked; the ones that do not exist listed apart.',
    response: R.ZipList,
    params: ZipCodesParams,
    variables: (p) => ({ codes: unique(p.codes) }),
    operation: RestZipsDocument,
    shape: (d, p) => {
      const asked = unique(p.codes);
      return { zipcodes: d.zips.filter((z) => z !== null), notFound: asked.filter((_code, i) => d.zips[i] === null) };
    },
    list: 'zipcodes',
  }),
  route({
    freshness: 'static',
    path: '/api/zips/near',
    summary: 'The ZIP codes nearest a point (lat, lng), nearest first: a reverse lookup.',
    response: R.ZipsNear,
    params: ZipsNearParams,
    operation: RestZipsNearDocument,
    shape: (d, p) => ({ center: { lat: p.lat, lng: p.lng }, radiusMiles: p.radiusMiles, results: d.zipsNear }),
    list: 'results',
  }),
];
