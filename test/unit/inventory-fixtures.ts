import type { ResortFacts } from '../../src/domain/resort.js';

/** Resorts of every size and region the generator distinguishes, made up for its golden test. */
const base: Omit<ResortFacts, 'id' | 'continent' | 'countryCode' | 'baseElevation' | 'summitElevation' | 'liftCount' | 'trailCount'> = {
  name: 'Test',
  countryName: 'Test',
  region: 'Test',
  lat: 45,
  lng: 7,
  website: null,
  timezone: 'Europe/Zurich',
};
export const SYNTHETIC: ResortFacts[] = [
  { ...base, id: 'alpine-giant', continent: 'Europe', countryCode: 'CH', baseElevation: 1200, summitElevation: 3400, liftCount: 60, trailCount: 150 },
  { ...base, id: 'alpine-small', continent: 'Europe', countryCode: 'AT', baseElevation: 900, summitElevation: 1500, liftCount: 6, trailCount: 20 },
  { ...base, id: 'french-mid', continent: 'Europe', countryCode: 'FR', baseElevation: 1500, summitElevation: 2700, liftCount: 25, trailCount: 80 },
  { ...base, id: 'rockies-big', continent: 'North America', countryCode: 'US', baseElevation: 2500, summitElevation: 3700, liftCount: 30, trailCount: 190 },
  { ...base, id: 'hill', continent: 'North America', countryCode: 'US', baseElevation: 300, summitElevation: 600, liftCount: 4, trailCount: 12 },
  { ...base, id: 'japan-powder', continent: 'Asia', countryCode: 'JP', baseElevation: 300, summitElevation: 1300, liftCount: 14, trailCount: 40 },
  { ...base, id: 'andes', continent: 'South America', countryCode: 'CL', baseElevation: 2800, summitElevation: 3600, liftCount: 22, trailCount: 60 },
  { ...base, id: 'tow', continent: 'Oceania', countryCode: 'NZ', baseElevation: 1500, summitElevation: 1800, liftCount: 2, trailCount: 5 },
];
