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
import { buildOnce, memoryMiB, startCommand, startServer } from './lib.js';
import { errorsOf, heavyRequests, mix, mixedRequests } from './load-mix.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 30);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 50);
const KEY = 'szg_load_test_key_0123456789';

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
// The abusive client too: one ordinary key, doing what an attacker with it would (see abuse()).
const abuserKey = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', 'create', '--name', 'abuser', '--quota', '1000000000', '--rate', '25'], {
  env: { ...process.env, DB_PATH: dbPath },
  encoding: 'utf8',
}).stdout.match(/szg_[\w-]+/)?.[0];
if (!abuserKey) throw new Error("could not create the abusive client's key");
const server = await startServer(
  startCommand().args,
  {
    ...startCommand().env,
    DB_PATH: dbPath,
    LOG_LEVEL: 'warn',
    API_KEYS: KEY,
    API_KEYS_QUOTA: '1000000000',
    API_KEYS_RATE: '1000000',
    SYNC_INTERVAL_MINUTES: '0',
  },
  // Started as a load balancer would send traffic: once /readyz says the server is warm.
  { path: '/readyz' },
);

/**
 * One ordinary key used as an attacker would, for `seconds`: event streams opened as fast as it
 * may (each held open), ever new ~90 KB variables (memory), and JSON nested 5,000 deep (10 KB
 * bodies). Its requests/s are capped by its rate; what it gets back is counted by status.
 */
async function abuse(): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  const count = (status: number | string) => (statuses[status] = (statuses[status] ?? 0) + 1);
  const held: AbortController[] = [];
  const until = Date.now() + seconds * 1000;
  const streams = (async () => {
    while (Date.now() < until) {
      const abort = new AbortController();
      const r = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': abuserKey! },
        body: JSON.stringify({ query: 'subscription { syncProgress { state } }' }),
        signal: abort.signal,
      }).catch(() => null);
      count(r ? `stream ${r.status}` : 'stream error');
      if (r?.status === 200) held.push(abort);
      else await r?.arrayBuffer().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  })();
  let n = 0;
  const filler = 'v'.repeat(90_000);
  const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
  const bodies = autocannon({
    url: server.url,
    connections: 4,
    duration: seconds,
    headers: { 'x-api-key': abuserKey!, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          n++;
          const body =
            n % 2
              ? JSON.stringify({ query: `{ zipStats { totalZips } } #${n % 50}`, variables: { f: { n, s: filler.slice(n % 1000) } } })
              : `{"query":"{ __typename }","variables":${deep}}`;
          return { ...req, method: 'POST', path: '/graphql', body };
        },
      },
    ],
  });
  const result = await bodies;
  for (const [code, { count: c }] of Object.entries(result.statusCodeStats ?? {})) statuses[`body ${code}`] = c ?? 0;
  await streams;
  for (const a of held) a.abort();
  return statuses;
}

/** The mix for `seconds` at `connections`; alone, beside the heavy client, or beside the abusive one. */
async function run(beside: 'nobody' | 'heavy' | 'abuser') {
  const normal = autocannon({ url: server.url, connections, duration: seconds, headers: { 'x-api-key': KEY }, requests: mixedRequests() });
  // A second client with a key of its own, sending the most expensive requests the API allows.
  const heavy =
    beside === 'heavy'
      ? autocannon({
          url: server.url,
          connections: 4,
          duration: seconds,
          headers: { 'x-api-key': HEAVY_KEY, 'content-type': 'application/json' },
          requests: heavyRequests(),
        })
      : null;
  const abuser = beside === 'abuser' ? abuse() : null;
  const [result, heavyResult, abuserResult] = await Promise.all([normal, heavy, abuser]);
  return { result, heavyResult, abuserResult };
}

const before = memoryMiB(server.pid).rss;
const plain = await run('nobody');
const mixed = await run('heavy');
const abused = await run('abuser');
const after = memoryMiB(server.pid);
await server.stop();
rmSync(dir, { recursive: true, force: true });

const row = (label: string, f: (r: autocannon.Result) => string | number) =>
  console.log(`| ${label} | ${f(plain.result)} | ${f(mixed.result)} | ${f(abused.result)} |`);
console.log(
  `\n| load (${seconds} s, ${connections} connections, ${mix.length} paths mixed) | alone | beside a heavy client | beside an abusive client |\n|---|---:|---:|---:|`,
);
row('requests/s (mean)', (r) => r.requests.average.toFixed(0));
row('requests total', (r) => r.requests.total);
row('latency p50 / p90 / p99 / max (ms)', (r) => `${r.latency.p50} / ${r.latency.p90} / ${r.latency.p99} / ${r.latency.max}`);
row('errors (connection errors + timeouts + non-2xx)', errorsOf);
row('status codes', (r) =>
  Object.entries(r.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}: ${count}`)
    .join(', '),
);
const heavy = mixed.heavyResult!;
console.log(
  `\nThe heavy client (4 connections, history 90 days x 10 years at varying radii, REST and GraphQL): ${heavy.requests.total} requests, ` +
    `${heavy['2xx']} answered, ${heavy.non2xx} refused (429 over its cost budget, or 503 past the deadline), p99 ${heavy.latency.p99} ms.`,
);
console.log(
  `The abusive client (one ordinary key: event streams, ever new 90 KB variables, JSON nested 5,000 deep): ${Object.entries(abused.abuserResult!)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ')}.`,
);
console.log(`p99 of the mix beside the abusive client: ${(abused.result.latency.p99 / Math.max(1, plain.result.latency.p99)).toFixed(2)}× alone.`);
console.log(`Server RSS before / after / peak: ${before} / ${after.rss} / ${after.peak} MiB`);
process.exit(errorsOf(plain.result) + errorsOf(mixed.result) + errorsOf(abused.result) === 0 ? 0 : 1);
