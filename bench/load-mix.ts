import type autocannon from 'autocannon';

/** The request mix `npm run load` and `npm run load:replicas` send: REST and GraphQL, cheap and not. */

export const zips = ['90210', '10001', '60601', '94105', '02108', '81657', '98101', '33101', '84101', '05672'];
export const resorts = ['vail', 'zermatt', 'whistler-blackcomb', 'niseko', 'thredbo', 'portillo', 'st-anton', 'alta'];
const gql = JSON.stringify({
  query:
    '{ resort(id: "vail") { name conditions { snowDepthBase newSnow24h openTrails } } zip(zip: "81657") { city nearbyResorts(limit: 3) { distanceMiles resort { id } } } }',
});

export const mix: ((i: number) => autocannon.Request)[] = [
  (i) => ({ path: `/api/zip/${zips[i % zips.length]}` }),
  (i) => ({ path: `/v1/api/zip/${zips[i % zips.length]}/nearby?radiusMiles=25&limit=50` }),
  () => ({ path: '/api/states' }),
  () => ({ path: '/api/states/VT/zipcodes?limit=100' }),
  () => ({ path: '/api/city/springfield' }),
  () => ({ path: '/api/resorts?limit=20' }),
  (i) => ({ path: `/api/resorts/${resorts[i % resorts.length]}` }),
  (i) => ({ path: `/api/resorts/${resorts[i % resorts.length]}/weather` }),
  () => ({ path: '/api/conditions/top-snow' }),
  () => ({ path: '/api/insights/snow?days=7' }),
  () => ({ path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json' }, body: gql }),
];

/** autocannon's request list cycling through the mix. */
export function mixedRequests(): autocannon.Request[] {
  let n = 0;
  return [
    {
      setupRequest: (req) => {
        const next = mix[n % mix.length]!(n);
        n++;
        return { ...req, ...next, headers: { ...req.headers, ...next.headers } };
      },
    },
  ];
}

/**
 * The heavy client's requests: the most expensive the API allows, each 90 days x 11 years x 7
 * points of simulation, at varying radii that defeat every cache; REST and GraphQL in turn.
 */
export function heavyRequests(): autocannon.Request[] {
  let h = 0;
  return [
    {
      setupRequest: (req) => {
        h++;
        const radius = (1 + (h % 3900) / 100).toFixed(2);
        return h % 2
          ? { ...req, path: `/api/resorts/${resorts[h % resorts.length]}/history?days=90&years=10&radiusKm=${radius}` }
          : {
              ...req,
              method: 'POST',
              path: '/graphql',
              body: JSON.stringify({
                query: `{ ${resorts
                  .slice(0, 3)
                  .map((id, i) => `r${i}: resort(id: "${id}") { history(days: 90, years: 10, radiusKm: ${radius}) { current { snowfall } } }`)
                  .join(' ')} }`,
              }),
            };
      },
    },
  ];
}

export const errorsOf = (r: autocannon.Result) => r.errors + r.timeouts + r.non2xx;
