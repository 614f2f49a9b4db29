/**
 * npm run load — a bounded load test against a real server process on 127.0.0.1, started the way
 * `npm start` starts it. LOAD_SECONDS (default 30) at LOAD_CONNECTIONS (default 50) over a mix of
 * REST and GraphQL paths; reports requests/s, latency percentiles, errors (must be 0) and the
 * server's memory (now and at its peak).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { buildOnce, memoryMiB, serverCommand, startServer } from './lib.js';
import { errorsOf, heavyRequests, mix, mixedRequests } from './load-mix.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 30);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 50);
const KEY = 'szg_load_test_key';


await buildOnce();
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-load-'));
const dbPath = path.join(dir, 'load.sqlite');
// The heavy client is an ordinary free-plan key (25 requests/s, so a cost budget of 500,000 per 10 s).
const created = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', 'create', '--name', 'heavy', '--quota', '1000000000', '--rate', '25'], {
  env: { ...process.env, DB_PATH: dbPath },
  encoding: 'utf8',
});
const HEAVY_KEY = created.stdout.match(/szg_[\w-]+/)?.[0];
if (!HEAVY_KEY) throw new Error(`could not create the heavy client's key: ${created.stderr}`);
const server = await startServer(
  serverCommand(),
  { DB_PATH: dbPath, LOG_LEVEL: 'warn', API_KEYS: KEY, API_KEYS_QUOTA: '1000000000', API_KEYS_RATE: '1000000', SYNC_INTERVAL_MINUTES: '0' },
  { path: '/health', headers: { 'x-api-key': KEY } },
);

/** The mix for `seconds` at `connections`; optionally with the heavy client alongside. */
async function run(withHeavy: boolean) {
  const normal = autocannon({ url: server.url, connections, duration: seconds, headers: { 'x-api-key': KEY }, requests: mixedRequests() });
  // A second client with a key of its own, sending the most expensive requests the API allows.
  const heavy = withHeavy
    ? autocannon({ url: server.url, connections: 4, duration: seconds, headers: { 'x-api-key': HEAVY_KEY, 'content-type': 'application/json' }, requests: heavyRequests() })
    : null;
  const [result, heavyResult] = await Promise.all([normal, heavy]);
  return { result, heavyResult };
}

const before = memoryMiB(server.pid).rss;
const plain = await run(false);
const mixed = await run(true);
const after = memoryMiB(server.pid);
await server.stop();
rmSync(dir, { recursive: true, force: true });

const row = (label: string, f: (r: autocannon.Result) => string | number) => console.log(`| ${label} | ${f(plain.result)} | ${f(mixed.result)} |`);
console.log(`\n| load (${seconds} s, ${connections} connections, ${mix.length} paths mixed) | alone | beside a heavy client |\n|---|---:|---:|`);
row('requests/s (mean)', (r) => r.requests.average.toFixed(0));
row('requests total', (r) => r.requests.total);
row('latency p50 / p90 / p99 / max (ms)', (r) => `${r.latency.p50} / ${r.latency.p90} / ${r.latency.p99} / ${r.latency.max}`);
row('errors (connection errors + timeouts + non-2xx)', errorsOf);
row('status codes', (r) => Object.entries(r.statusCodeStats ?? {}).map(([code, { count }]) => `${code}: ${count}`).join(', '));
const heavy = mixed.heavyResult!;
console.log(`\nThe heavy client (4 connections, history 90 days x 10 years at varying radii, REST and GraphQL): ${heavy.requests.total} requests, ` +
  `${heavy['2xx']} answered, ${heavy.non2xx} refused (429 over its cost budget, or 503 past the deadline), p99 ${heavy.latency.p99} ms.`);
console.log(`Server RSS before / after / peak: ${before} / ${after.rss} / ${after.peak} MiB`);
process.exit(errorsOf(plain.result) + errorsOf(mixed.result) === 0 ? 0 : 1);
