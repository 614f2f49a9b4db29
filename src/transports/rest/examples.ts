/**
 * One example value per REST parameter name, from the real data (a ZIP in Beverly Hills, Vail and
 * Zermatt from the catalogue, Aspen in Colorado), valid for every path that takes the parameter:
 * /openapi.json shows them, /docs fills them in, and the suite calls every documented path with
 * them (test/helpers/paths.ts) and checks each passes its route's validation.
 */
export const PARAMETER_EXAMPLES: Readonly<Record<string, string | number>> = {
  zip: '90210',
  from: '90210',
  to: '10001',
  codes: '90210,05401,10001',
  lat: 39.64,
  lng: -106.37,
  state: 'CO',
  city: 'Aspen',
  radiusMiles: 10,
  limit: 10,
  offset: 0,
  id: 'vail',
  with: 'zermatt',
  q: 'vail',
  country: 'US',
  region: 'Colorado',
  continent: 'North America',
  units: 'imperial',
  days: 7,
  years: 2,
  radiusKm: 12,
  minOpenTrailsPct: 50,
};
