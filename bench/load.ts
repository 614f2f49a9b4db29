/**
 * npm run load — a bounded load test against a real server process on 127.0.0.1, started the way
 * `npm start` starts it. LOAD_SECONDS (default 30) at LOAD_CONNECTIONS (default 50) over a mix of
 * REST and GraphQL paths; reports requests/s, latency percentiles, errors (must be 0) and the
 * server's memory (now and at its peak).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { buildOnce, memoryMiB, serverCommand, startServer } from './lib.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 30);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 50);
const KEY = 'szg_load_test_key';

await buildOnce();
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-load-'));
const server = await startServer(
  serverCommand(),
  { DB_PATH: path.join(dir, 'load.sqlite'), LOG_LEVEL: 'warn', API_KEYS: KEY, API_KEYS_QUOTA: '1000000000', API_KEYS_RATE: '1000000', SYNC_INTERVAL_MINUTES: '0' },
  { path: '/health', headers: { 'x-api-key': KEY } },
);

const zips = ['90210', '10001', '60601', '94105', '02108', '81657', '98101', '33101', '84101', '05672'];
const resorts = ['vail', 'zermatt', 'whistler-blackcomb', 'niseko', 'thredbo', 'portillo', 'st-anton', 'alta'];
const gql = JSON.stringify({ query: '{ resort(id: "vail") { name conditions { snowDepthBase newSnow24h openTrails } } zip(zip: "81657") { city nearbyResorts(limit: 3) { distanceMiles resort { id } } } }' });
const mix: ((i: number) => autocannon.Request)[] = [
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

const before = memoryMiB(server.pid).rss;
let n = 0;
const result = await autocannon({
  url: server.url,
  connections,
  duration: seconds,
  headers: { 'x-api-key': KEY },
  requests: [
    {
      setupRequest: (req) => {
        const next = mix[n % mix.length]!(n);
        n++;
        return { ...req, ...next, headers: { ...req.headers, ...next.headers } };
      },
    },
  ],
});
const after = memoryMiB(server.pid);
await server.stop();
rmSync(dir, { recursive: true, force: true });

const errors = result.errors + result.timeouts + result.non2xx;
console.log(`\n| load (${seconds} s, ${connections} connections, ${mix.length} paths mixed) | value |\n|---|---:|`);
console.log(`| requests/s (mean) | ${result.requests.average.toFixed(0)} |`);
console.log(`| requests total | ${result.requests.total} |`);
console.log(`| latency p50 / p90 / p99 / max (ms) | ${result.latency.p50} / ${result.latency.p90} / ${result.latency.p99} / ${result.latency.max} |`);
console.log(`| errors (connection errors + timeouts + non-2xx) | ${errors} |`);
console.log(`| server RSS before / after / peak (MiB) | ${before} / ${after.rss} / ${after.peak} |`);
process.exit(errors === 0 ? 0 : 1);
