/**
 * npm run bench — one table, one run: every server in a process of its own, measured side by side.
 * Speed is compared as server CPU per request (from /proc) and its ratio to the floor, because
 * this machine is shared and noisy; wall-clock req/s is shown but bounded by the one load
 * generator. Each row is the median of BENCH_RUNS (default 3) fresh server processes, with the
 * range over them.
 *
 * A fair race: every server gets the same warm-up (BENCH_WARM_UP_SECONDS per kind of request it is
 * measured on, over ZIPs no row asks for), and the same measurement — GraphQL ZIP lookups for
 * BENCH_SECONDS each, REST ZIP lookups one pass over the same ZIPs (each once: a response cache
 * must not answer them). The peer, mercurius + graphql-jit, runs over our server's own ZIP table
 * in memory (the row then measures the GraphQL server, not the data path), over a Map of record
 * objects, and over SQLite as a user first writes it.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { transformSync } from 'esbuild';
import Database from 'better-sqlite3';
import { buildDatabase } from '../src/data/db/build.js';
import { cacheMissCost } from './cache-miss.js';
import { buildOnce, cpuSeconds, GRAPHQL_ZIP_QUERY, median, memoryMiB, serverCommand, shuffled, startCommand, startServer, type ServerProcess } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
// BENCH_QUICK=1 skips stock Yoga and the cache-off row (while iterating; the table needs them).
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
const KEY = 'szg_bench_key_0123456789';
/** Reads /metrics (the response cache's counts per workload); never sends a measured request. */
const ADMIN_KEY = 'szg_bench_admin_key_0123456789';

await buildOnce();
/**
 * BENCH_BASELINE=<directory>: another checkout of this project (e.g. `git worktree add /tmp/base
 * <commit>`, with node_modules), whose bundle runs beside ours in this very run, so a change's
 * before and after are measured side by side on the same machine state.
 */
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : null;
// A baseline whose dist/ is already built is used as it is (its dependencies may differ from ours).
if (BASELINE && !existsSync(path.join(BASELINE, 'dist', 'server.js'))) {
  const { buildDist } = (await import(path.join(BASELINE, 'scripts', 'build.mjs'))) as { buildDist: (outdir: string) => Promise<void> };
  await buildDist(path.join(BASELINE, 'dist'));
}
// The baseline runs as its own package.json's npm start would (its node flags and environment).
const baselineCommand = () => [...startCommand(BASELINE!).args.slice(0, -1), path.join(BASELINE!, 'dist', 'server.js')];
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-bench-'));
// The peers' data path is our server's: its ZIP table module, compiled for plain node.
const zipTableModule = path.join(dir, 'zip-table.mjs');
writeFileSync(zipTableModule, transformSync(readFileSync('src/data/repositories/zip-table.ts', 'utf8'), { loader: 'ts', format: 'esm' }).code);
const dbPath = path.join(dir, 'bench.sqlite');
buildDatabase(dbPath);
const db = new Database(dbPath, { readonly: true });
const allZips = shuffled(db.prepare('SELECT zip FROM zips').pluck().all() as string[]);
/**
 * The warm-ups ask for these ZIPs; the rows for the others. No cache (ours, or a peer's) can carry
 * a warm-up's answer into a row.
 */
const WARM_ZIPS = 10_000;
const warmZips = allZips.slice(0, WARM_ZIPS);
const zips = allZips.slice(WARM_ZIPS);
const resorts = db.prepare('SELECT id FROM resorts ORDER BY id').pluck().all() as string[];
/** Answers the size of a REST ZIP answer, for the cache's own cost on a miss (cache-miss.ts). */
const sampleAnswers = (db.prepare('SELECT * FROM zips LIMIT 1000').all() as object[]).map((row) => JSON.stringify(row));
db.close();

interface Sample {
  rps: number;
  cpuUs: number;
  /** Bytes on the wire per answer, headers included (autocannon's throughput over requests). */
  bytes: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
}

type RequestOf = (i: number) => autocannon.Request;

/** Sends `amount` requests (or runs for SECONDS) and reads the server's CPU time around it. */
async function measure(
  server: ServerProcess,
  request: RequestOf,
  amount?: number,
  headers: Record<string, string> = {},
  alsoCounted: ServerProcess[] = [],
  seconds = SECONDS,
  refusalsExpected = false,
): Promise<Sample> {
  let i = 0;
  // CPU of the server, and of the servers it calls (a gateway's upstream), for the whole chain.
  const cpuOfAll = () => [server, ...alsoCounted].reduce((sum, p) => sum + cpuSeconds(p.pid), 0);
  const cpu0 = cpuOfAll();
  const result = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    ...(amount ? { amount } : { duration: seconds }),
    headers: { 'x-api-key': KEY, ...headers },
    requests: [{ setupRequest: (r) => ({ ...r, ...request(i++), headers: { ...r.headers, ...request(i - 1).headers } }) }],
  });
  const cpu = cpuOfAll() - cpu0;
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    cpuUs: (cpu * 1e6) / Math.max(1, requests),
    bytes: result.throughput.total / Math.max(1, requests),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors:
      result.errors + result.timeouts + result.non2xx - (headers['if-none-match'] ? (result['3xx'] ?? 0) : 0) - (refusalsExpected ? (result['4xx'] ?? 0) : 0),
    requests,
  };
}

/** How long each server is warmed, per kind of request it is measured on (BENCH_WARM_UP_SECONDS). */
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 2);

/**
 * Before a server's rows, the same for every server: each kind of request it is measured on
 * (REST ZIP lookups, GraphQL ZIP lookups; in the race also nearby searches and resort details),
 * for WARM_UP_SECONDS, over the warm-up ZIPs (real ones, so the path a row measures is the path
 * V8 has compiled; never the ZIPs a row asks for).
 */
async function warmUp(server: ServerProcess, kinds: readonly ('rest' | 'graphql' | 'nearby' | 'resort')[], seconds = WARM_UP_SECONDS) {
  for (const kind of kinds) {
    let i = 0;
    await autocannon({
      url: server.url,
      connections: CONNECTIONS,
      duration: seconds,
      headers: { 'x-api-key': KEY },
      requests: [
        {
          setupRequest: (r) => {
            const zip = warmZips[i++ % warmZips.length]!;
            const req =
              kind === 'graphql'
                ? gqlOf(zip)
                : kind === 'nearby'
                  ? { path: `/api/zip/${zip}/nearby?radiusMiles=25&limit=50` }
                  : kind === 'resort'
                    ? resortDetail(i)
                    : { path: `/api/zip/${zip}` };
            return { ...r, ...req, headers: { ...r.headers, ...req.headers } };
          },
        },
      ],
    });
  }
}

const zipLookup: RequestOf = (i) => ({ path: `/api/zip/${zips[i % zips.length]}` });
/** A bulk client: every ZIP of the rows again and again, in the same order (more than any cache holds). */
const bulkZips: RequestOf = zipLookup;
/** A popular app: a tenth of the ZIPs get nine requests in ten, the rest one in ten, spread over all. */
const popular = zips.slice(0, Math.ceil(zips.length / 10));
const skewedZips: RequestOf = (i) => ({ path: `/api/zip/${i % 10 === 0 ? zips[(i * 7919) % zips.length] : popular[(i * 104_729) % popular.length]}` });
const gqlOf = (zip: string): autocannon.Request => ({
  path: '/graphql',
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: GRAPHQL_ZIP_QUERY, variables: { zip } }),
});
const gqlLookup: RequestOf = (i) => gqlOf(zips[i % zips.length]!);
/** The same lookup as a persisted query over GET (Apollo's APQ hash, registered once before the row). */
const GQL_ZIP_HASH = createHash('sha256').update(GRAPHQL_ZIP_QUERY).digest('hex');
const persistedGet: RequestOf = (i) => ({
  path: `/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: GQL_ZIP_HASH } }))}&variables=${encodeURIComponent(JSON.stringify({ zip: zips[i % zips.length] }))}`,
});
const resortDetail: RequestOf = (i) => ({ path: `/api/resorts/${resorts[i % resorts.length]}` });
const malformedZip: RequestOf = (i) => ({ path: `/api/zip/${zips[i % zips.length]!.slice(0, 4)}x${i}` });
const nearby: RequestOf = (i) => ({ path: `/api/zip/${zips[i % zips.length]}/nearby?radiusMiles=25&limit=50` });
/**
 * What a client asks first: a ZIP, a GraphQL lookup, a nearby search, each answer new (no cache
 * can hide the work). The warm row asks for other ZIPs (from `offset`), so neither row repeats.
 */
const firstSecond =
  (offset: number): RequestOf =>
  (i) =>
    [zipLookup(offset + i), gqlLookup(offset + i), nearby(offset + i)][i % 3]!;
/** A large answer (about 225 KB of JSON), as REST (kept in the response cache) and as GraphQL (computed each time). */
const STATES = ['CA', 'TX', 'NY', 'PA', 'IL', 'OH', 'FL', 'MI'];
const bigRest: RequestOf = (i) => ({ path: `/api/states/${STATES[i % STATES.length]}/zipcodes?limit=1000` });
const GQL_BIG =
  'query Big($state: String!) { state(code: $state) { zipcodes(limit: 1000) { zip city stateCode stateName county countyFips lat lng timezone lastUpdated } } }';
const bigGraphQL: RequestOf = (i) => ({
  path: '/graphql',
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: GQL_BIG, variables: { state: STATES[i % STATES.length] } }),
});

interface Row {
  name: string;
  samples: Sample[];
  coldStartMs: number[];
  peakMiB: number[];
}
const rows = new Map<string, Row>();
function record(name: string, sample: Sample, server: ServerProcess) {
  // Each sample as it is measured (stderr; the tables go to stdout at the end): a run that stops
  // part way still shows what it measured.
  const memory = memoryMiB(server.pid);
  console.error(
    `measured: ${name}: ${sample.cpuUs.toFixed(0)} µs/req, ${sample.rps.toFixed(0)} req/s, p99 ${sample.p99} ms, ${sample.errors} errors, peak ${memory.peak} MiB`,
  );
  const row = rows.get(name) ?? { name, samples: [], coldStartMs: [], peakMiB: [] };
  row.samples.push(sample);
  row.coldStartMs.push(server.coldStartMs);
  row.peakMiB.push(memory.peak);
  rows.set(name, row);
}

const probe = { path: '/api/zip/90210', headers: { 'x-api-key': KEY } };
/** A peer's first answer: the ZIP lookup as a GraphQL GET. */
const peerProbe = { path: `/graphql?query=${encodeURIComponent('{ zip(zip: "90210") { zip city } }')}` };
const PEER_TABLE_ROW = 'fastify + mercurius + graphql-jit over our ZIP table in memory (a record made per lookup), GraphQL ZIP lookup with variables';
const PEER_OBJECTS_ROW = 'fastify + mercurius + graphql-jit over a Map of ZIP record objects (~10 MiB more heap), GraphQL ZIP lookup with variables';
const PEER_SQLITE_ROW = 'fastify + mercurius + graphql-jit over SQLite (one table, as a user writes it), GraphQL ZIP lookup with variables';

/** The same ZIP lookup through the schema Mesh derives from our OpenAPI document. */
const HIVE_ZIP =
  'query Zip($zip: queryInput_zip_zip!) { zip(zip: $zip) { ... on ZipRecord { zip city stateCode stateName county countyFips lat lng lastUpdated } } }';
const hiveLookup: RequestOf = (i) => ({
  path: '/graphql',
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: HIVE_ZIP, variables: { zip: zips[i % zips.length] } }),
});

/**
 * The peer a user would otherwise deploy: GraphQL Mesh composes a supergraph from our
 * /openapi.json and Hive Gateway serves it, calling our REST path. Its CPU is the gateway's plus
 * our server's (the whole chain), to compare with our /graphql answering alone.
 */
async function hiveGatewayOver(upstream: ServerProcess): Promise<ServerProcess> {
  const supergraph = path.join(dir, 'supergraph.graphql');
  const composed = spawnSync(process.execPath, ['node_modules/.bin/mesh-compose', '-c', 'bench/servers/hive/mesh.config.ts', '-o', supergraph], {
    env: { ...process.env, UPSTREAM: upstream.url, BENCH_KEY: KEY },
    encoding: 'utf8',
  });
  if (composed.status !== 0) throw new Error(`mesh-compose failed: ${composed.stderr}`);
  return startServer(
    ['node_modules/.bin/hive-gateway', 'supergraph', supergraph, '--fork', '1'],
    { NODE_ENV: 'production', LOG_LEVEL: 'error' },
    { path: '/graphql?query=%7B__typename%7D' },
  );
}
const settings = {
  DB_PATH: dbPath,
  LOG_LEVEL: 'silent',
  NODE_ENV: 'production',
  API_KEYS: KEY,
  API_ADMIN_KEYS: ADMIN_KEY,
  API_KEYS_QUOTA: '1000000000',
  API_KEYS_RATE: '1000000',
  SYNC_INTERVAL_MINUTES: '0',
};
// npm start's environment (its package.json) under the bench's settings.
const serverEnv = { ...startCommand().env, ...settings };
// The baseline reads a copy: a checkout of another schema version rebuilds its own file (once, in
// a start before any it is measured in), and ours is left as it is.
const baselineEnv = { ...(BASELINE ? startCommand(BASELINE).env : {}), ...settings, DB_PATH: path.join(dir, 'baseline.sqlite') };
if (BASELINE) {
  copyFileSync(dbPath, baselineEnv.DB_PATH);
  await (await startServer(baselineCommand(), baselineEnv, { path: '/readyz' })).stop();
}

/**
 * The request path's rows, for our server and for a baseline checkout's, each through the same
 * steps from its start: the first second after /readyz turns 200 (what a load balancer sends
 * first; real answers, before any warm-up of the bench's own), the warm-ups, then the rows. The
 * steps matter as much as the code: a server that has answered real requests before its hot
 * functions were optimized costs 8-10 µs more per REST ZIP lookup than one warmed on 404s only
 * (BENCHMARKS.md, 2026-11-25), so a before and an after are only comparable after the same steps.
 */
/** The response cache's lookups by result (hit, miss, stored, declined), from /metrics. */
async function cacheCounts(server: ServerProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } })).text();
  return Object.fromEntries([...text.matchAll(/^response_cache_lookups\{result="(\w+)"\} (\d+)/gm)].map(([, result, n]) => [result!, Number(n)]));
}
/** What the cache did in each workload's row, one line each, printed with the tables. */
const cacheLines: string[] = [];

async function recordRequestPath(who: 'ours' | 'baseline', server: ServerProcess) {
  for (;;) {
    if ((await fetch(`${server.url}/readyz`)).ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  record(
    `${who}: first second after /readyz turns 200 (ZIP, GraphQL, nearby; every answer new)`,
    await measure(server, firstSecond(0), undefined, {}, [], 1),
    server,
  );
  await warmUp(server, ['rest', 'graphql']);
  record(`${who}: REST /api/zip/{zip} with a key`, await measure(server, zipLookup, zips.length), server);
  for (const [workload, request] of [
    ['a bulk client (every ZIP cycled)', bulkZips],
    ['a popular app (a tenth of the ZIPs get 90 %)', skewedZips],
  ] as const) {
    const before = await cacheCounts(server);
    record(`${who}: REST /api/zip/{zip}, ${workload}`, await measure(server, request), server);
    const after = await cacheCounts(server);
    cacheLines.push(
      `${who}, ${workload}: ${Object.entries(after)
        .map(([k, v]) => `${k} ${v - (before[k] ?? 0)}`)
        .join(', ')}`,
    );
  }
  record(`${who}: GraphQL ZIP lookup with variables and a key`, await measure(server, gqlLookup), server);
  record(`${who}: REST /api/zip/{zip}/nearby (25 mi, limit 50), every center different`, await measure(server, nearby, zips.length), server);
  record(`${who}: REST /api/resorts/{id}`, await measure(server, resortDetail), server);
  // What an abusive or careless client costs: every request refused (400 problem+json naming the bound).
  record(
    `${who}: REST /api/zip/{zip} with a malformed ZIP (400), every one different`,
    await measure(server, malformedZip, zips.length, {}, [], SECONDS, true),
    server,
  );
  // A persisted query over GET, beside the REST lookup: every ZIP once, then 1,000 repeated (kept answers).
  await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ query: GRAPHQL_ZIP_QUERY, variables: { zip: '90210' }, extensions: { persistedQuery: { version: 1, sha256Hash: GQL_ZIP_HASH } } }),
  });
  record(`${who}: GraphQL ZIP lookup as a persisted query over GET (APQ hash)`, await measure(server, persistedGet, zips.length), server);
  record(`${who}: GraphQL persisted GET, warm response cache (1,000 ZIPs repeated)`, await measure(server, (i) => persistedGet(i % 1000)), server);
  // The same 1,000 ZIPs again and again: answers come from the response cache.
  record(`${who}: REST /api/zip/{zip}, warm response cache (1,000 ZIPs repeated)`, await measure(server, (i) => zipLookup(i % 1000)), server);
  const first = await fetch(`${server.url}/api/zip/90210`, { headers: { 'x-api-key': KEY } });
  const etag = first.headers.get('etag');
  if (etag) {
    record(
      `${who}: REST /api/zip/{zip}, If-None-Match → 304`,
      await measure(server, () => ({ path: '/api/zip/90210' }), undefined, { 'if-none-match': etag }),
      server,
    );
  }
}

/** The floor, and the peer over one of its data paths (PEER_DATA), as the rows and the race start them. */
const startFloor = () => startServer(['bench/servers/floor.mjs'], { DB_PATH: dbPath }, probe);
const startPeer = (data: 'table' | 'objects' | 'sqlite') =>
  startServer(['bench/servers/mercurius.mjs'], { DB_PATH: dbPath, PEER_DATA: data, ZIP_TABLE_MODULE: zipTableModule }, peerProbe);

/** Every request of a ZIP row asks for a different ZIP: all 40,977 once, shuffled, so no cache can hide the work. */
for (let run = 0; run < RUNS; run++) {
  const floor = await startFloor();
  await warmUp(floor, ['rest']);
  record('floor: bare node:http + better-sqlite3, JSON.stringify', await measure(floor, zipLookup, zips.length), floor);
  record('floor: a bulk client (every ZIP cycled)', await measure(floor, bulkZips), floor);
  record('floor: a popular app (a tenth of the ZIPs get 90 %)', await measure(floor, skewedZips), floor);
  await floor.stop();

  for (const [data, row] of [
    ['table', PEER_TABLE_ROW],
    ['objects', PEER_OBJECTS_ROW],
    ['sqlite', PEER_SQLITE_ROW],
  ] as const) {
    const peer = await startPeer(data);
    await warmUp(peer, ['graphql']);
    record(row, await measure(peer, gqlLookup), peer);
    await peer.stop();
  }

  if (!process.env.BENCH_QUICK) {
    const yoga = await startServer(['bench/servers/stock-yoga.mjs'], { DB_PATH: dbPath, ZIP_TABLE_MODULE: zipTableModule }, peerProbe);
    await warmUp(yoga, ['graphql']);
    record('stock graphql-yoga + Pothos (our ZIP table in memory), GraphQL ZIP lookup with variables', await measure(yoga, gqlLookup), yoga);
    await yoga.stop();
  }

  // The same requests as the first second, warm, come at the end of this server's rows.
  const ours = await startServer(serverCommand(), serverEnv, probe);
  await recordRequestPath('ours', ours);
  record('ours: the same kind of requests, warm (other ZIPs)', await measure(ours, firstSecond(20_000), undefined, {}, [], 1), ours);
  // Compression: the same large answers as they are, and in each coding (bytes per answer in the name's row).
  for (const [coding, header] of [
    ['identity', {}],
    ['br', { 'accept-encoding': 'br' }],
    ['gzip', { 'accept-encoding': 'gzip' }],
  ] as const) {
    record(`ours: REST 1,000 ZIPs of a state (kept answers), ${coding}`, await measure(ours, bigRest, undefined, header), ours);
  }
  // The same lists as CSV and NDJSON (Accept): streamed from the operation each time (JSON is kept).
  for (const [form, accept] of [
    ['CSV', 'text/csv'],
    ['NDJSON', 'application/x-ndjson'],
  ] as const) {
    record(`ours: REST 1,000 ZIPs of a state as ${form} (streamed each time), identity`, await measure(ours, bigRest, undefined, { accept }), ours);
  }
  for (const [coding, header] of [
    ['identity', {}],
    ['gzip', { 'accept-encoding': 'gzip, br' }],
  ] as const) {
    record(`ours: GraphQL 1,000 ZIPs of a state (computed each time), ${coding}`, await measure(ours, bigGraphQL, undefined, header), ours);
  }
  await ours.stop();

  // Tracing on: every request sampled and exported over OTLP/HTTP to a sink in this process
  // (which answers at once), to set beside the rows above, where OTEL_* is unset.
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const traced = await startServer(
    serverCommand(),
    { ...serverEnv, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}` },
    probe,
  );
  await warmUp(traced, ['rest', 'graphql']);
  record('ours, tracing on (every request, OTLP/HTTP): REST /api/zip/{zip} with a key', await measure(traced, zipLookup, zips.length), traced);
  record('ours, tracing on (every request, OTLP/HTTP): GraphQL ZIP lookup with variables and a key', await measure(traced, gqlLookup), traced);
  await traced.stop();
  sink.close();

  if (BASELINE) {
    const base = await startServer(baselineCommand(), baselineEnv, probe);
    await recordRequestPath('baseline', base);
    await base.stop();
  }

  if (process.env.BENCH_QUICK) continue;
  const upstream = await startServer(serverCommand(), serverEnv, probe);
  const hive = await hiveGatewayOver(upstream);
  await autocannon({
    url: hive.url,
    connections: CONNECTIONS,
    amount: 3000,
    requests: [{ setupRequest: (r) => ({ ...r, ...hiveLookup(0), body: JSON.stringify({ query: HIVE_ZIP, variables: { zip: '00000' } }) }) }],
  });
  record('Hive Gateway + Mesh over our /openapi.json → our REST (both processes)', await measure(hive, hiveLookup, zips.length, {}, [upstream]), hive);
  await hive.stop();
  await upstream.stop();

  const uncached = await startServer(serverCommand(), { ...serverEnv, RESPONSE_CACHE_MB: '0' }, probe);
  await warmUp(uncached, ['rest']);
  record('ours: REST /api/resorts/{id}, response cache off', await measure(uncached, resortDetail), uncached);
  await uncached.stop();
}

/**
 * The race: the rows issue 62's targets compare, measured in turns. The table's rows are minutes
 * apart (the peers', then ours), and this shared machine's speed drifts by a third in that time,
 * which moved a ratio more than a change did. Here the floor, mercurius + graphql-jit over our
 * ZIP table and over SQLite, and ours run side by side (one measured at a time; an idle server
 * costs nothing), each warmed as above, and every round measures each of them once, in turn, the
 * order reversed every other round: a ratio comes from measurements seconds apart. REST ZIP (a) and
 * nearby turns send a slice of the measured ZIPs each once, a new slice every round (our
 * response cache must not answer them); the bulk client (b), the popular app (c), GraphQL and
 * resort turns run BENCH_SECONDS, (b) and (c) on a second server of ours. Each target's
 * value is the median of its ratios over BENCH_RUNS × BENCH_RACE_ROUNDS rounds, with their range.
 */
const RACE_ROUNDS = Number(process.env.BENCH_RACE_ROUNDS ?? 3);
/**
 * Before each turn, BENCH_TURN_WARM_SECONDS (1) of the same kind of request over the warm-up ZIPs,
 * unmeasured, for every entrant alike: a server idle for the other turns' half minute paid a
 * third more for its next few thousand requests (the heap and code V8 let go while idle), which
 * moved (a)'s half-second turns by up to 3× and measured waking up, not the request path.
 */
const TURN_WARM_SECONDS = Number(process.env.BENCH_TURN_WARM_SECONDS ?? 1);
async function turn(server: ServerProcess, kind: 'rest' | 'graphql' | 'nearby' | 'resort', measured: () => Promise<Sample>): Promise<Sample> {
  if (TURN_WARM_SECONDS > 0) await warmUp(server, [kind], TURN_WARM_SECONDS);
  return measured();
}
const RACE_TARGETS = [
  ['`/graphql` ZIP lookup ≥ 1.5× mercurius + graphql-jit over SQLite (throughput per CPU)', 'peerSqlite', 'oursGraphQL'],
  ['`/graphql` ZIP lookup ≥ 1.0× mercurius + graphql-jit over our ZIP table in memory (throughput per CPU)', 'peerTable', 'oursGraphQL'],
  ['REST ZIP lookup (a), each ZIP once, ≥ 0.8× the floor (throughput per CPU)', 'floor', 'oursRest'],
  ['REST ZIP lookup (b), a bulk client, ≥ 0.8× the floor (throughput per CPU)', 'floorBulk', 'oursBulk'],
  ['REST ZIP lookup (c), a popular app, ahead of the floor (throughput per CPU > 1.0×)', 'floorPopular', 'oursPopular'],
  ['nearby (25 mi, 50) ≤ 3× the floor’s CPU', 'oursNearby', 'floor'],
  ['resort detail ≤ 1.2× the floor’s CPU', 'oursResort', 'floor'],
] as const;
type Entrant =
  | 'floor'
  | 'floorBulk'
  | 'floorPopular'
  | 'peerTable'
  | 'peerSqlite'
  | 'oursRest'
  | 'oursBulk'
  | 'oursPopular'
  | 'oursGraphQL'
  | 'oursNearby'
  | 'oursResort';
const raceRatios = new Map<string, number[]>(RACE_TARGETS.map(([name]) => [name, []]));
const raceErrors: string[] = [];
const workloadsDb = path.join(dir, 'workloads.sqlite');
for (let run = 0; RACE_ROUNDS > 0 && run < RUNS; run++) {
  const floor = await startFloor();
  const peerTable = await startPeer('table');
  const peerSqlite = await startPeer('sqlite');
  const ours = await startServer(serverCommand(), serverEnv, probe);
  // Workloads (b) and (c) on a server of their own: what they leave in its response cache must
  // not answer (a)'s ZIPs, each asked once, in a later round.
  if (run === 0) copyFileSync(dbPath, workloadsDb);
  const oursWorkloads = await startServer(serverCommand(), { ...serverEnv, DB_PATH: workloadsDb }, probe);
  await warmUp(floor, ['rest']);
  await warmUp(peerTable, ['graphql']);
  await warmUp(peerSqlite, ['graphql']);
  await warmUp(ours, ['rest', 'graphql', 'nearby', 'resort']);
  await warmUp(oursWorkloads, ['rest']);
  const slice = Math.floor(zips.length / RACE_ROUNDS);
  for (let round = 0; round < RACE_ROUNDS; round++) {
    const from = round * slice;
    const turns: [Entrant, () => Promise<Sample>][] = [
      ['floor', () => turn(floor, 'rest', () => measure(floor, (i) => zipLookup(from + i), slice))],
      ['floorBulk', () => turn(floor, 'rest', () => measure(floor, bulkZips))],
      ['floorPopular', () => turn(floor, 'rest', () => measure(floor, skewedZips))],
      ['peerTable', () => turn(peerTable, 'graphql', () => measure(peerTable, (i) => gqlLookup(from + i)))],
      ['peerSqlite', () => turn(peerSqlite, 'graphql', () => measure(peerSqlite, (i) => gqlLookup(from + i)))],
      ['oursRest', () => turn(ours, 'rest', () => measure(ours, (i) => zipLookup(from + i), slice))],
      ['oursBulk', () => turn(oursWorkloads, 'rest', () => measure(oursWorkloads, bulkZips))],
      ['oursPopular', () => turn(oursWorkloads, 'rest', () => measure(oursWorkloads, skewedZips))],
      ['oursGraphQL', () => turn(ours, 'graphql', () => measure(ours, (i) => gqlLookup(from + i)))],
      ['oursNearby', () => turn(ours, 'nearby', () => measure(ours, (i) => nearby(from + i), slice))],
      ['oursResort', () => turn(ours, 'resort', () => measure(ours, resortDetail))],
    ];
    if (round % 2 === 1) turns.reverse();
    const cpu = {} as Record<Entrant, number>;
    for (const [who, runTurn] of turns) {
      const sample = await runTurn();
      cpu[who] = sample.cpuUs;
      if (sample.errors > 0) raceErrors.push(`${who}: ${sample.errors} errors in round ${round + 1} of run ${run + 1}`);
      console.error(`race: run ${run + 1} round ${round + 1}: ${who} ${sample.cpuUs.toFixed(1)} µs/req`);
    }
    for (const [name, over, under] of RACE_TARGETS) raceRatios.get(name)!.push(cpu[over] / cpu[under]);
  }
  for (const server of [floor, peerTable, peerSqlite, ours, oursWorkloads]) await server.stop();
}

/**
 * Start-up: spawn to the first answered request (probed every 5 ms), the median of START_RUNS
 * starts, each server alone. Ours both as `npm start` runs it (npm, then scripts/start.mjs) and
 * as `node dist/server.js`, as a restart finds dist/: with the code cache a server started the
 * same way left (our servers above left npm start's; the first start of `node dist/server.js`,
 * stopped like every one here, leaves its own at its stop); and last as the first start after a
 * build finds dist/, with only the cache the build primed (each start's fuller one removed before
 * it). The peers as plain node scripts.
 */
const START_RUNS = Number(process.env.BENCH_START_RUNS ?? 5);
const leftCodeCaches = () => readdirSync('dist').filter((f) => f.endsWith('.cache') && !f.endsWith('.primed.cache'));
const firstAfterBuild = 'ours: node dist/server.js, first start after a build (the code cache the build primed)';
const startups: { name: string; ms: number[] }[] = [];
for (const [name, bin, args, env, first] of [
  ['floor: node bench/servers/floor.mjs', process.execPath, ['bench/servers/floor.mjs'], { DB_PATH: dbPath }, probe],
  [
    'fastify + mercurius + graphql-jit: node bench/servers/mercurius.mjs',
    process.execPath,
    ['bench/servers/mercurius.mjs'],
    { DB_PATH: dbPath, ZIP_TABLE_MODULE: zipTableModule },
    peerProbe,
  ],
  ['ours: node dist/server.js', process.execPath, ['dist/server.js'], serverEnv, probe],
  ['ours: npm start', 'npm', ['start', '--silent'], serverEnv, probe],
  [firstAfterBuild, process.execPath, ['dist/server.js'], serverEnv, probe],
] as const) {
  const row = { name, ms: [] as number[] };
  for (let i = 0; i < START_RUNS; i++) {
    if (name === firstAfterBuild) for (const file of leftCodeCaches()) rmSync(path.join('dist', file));
    const server = await startServer([...args], env, first, bin);
    row.ms.push(server.coldStartMs);
    await server.stop();
  }
  startups.push(row);
}

const floorCpu = median(
  rows
    .values()
    .next()
    .value!.samples.map((s) => s.cpuUs),
);
console.log(
  `\nnpm run bench — ${new Date().toISOString().slice(0, 16)}Z, ${RUNS} runs (median by CPU, its range beside it), ${CONNECTIONS} connections; every server warmed ${WARM_UP_SECONDS} s per kind of request it is measured on, over ${warmZips.length} ZIPs no row asks for; REST ZIP rows send each of the other ${zips.length} ZIPs once, GraphQL ZIP lookups and the other rows run ${SECONDS} s`,
);
console.log(
  '\n| path | req/s | server CPU µs/req | CPU range over runs | CPU vs floor | throughput per CPU vs floor | p50 / p99 ms | errors | bytes/answer | peak RSS MiB | cold start ms |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const row of rows.values()) {
  const byCpu = [...row.samples].sort((a, b) => a.cpuUs - b.cpuUs);
  const s = byCpu[Math.floor(byCpu.length / 2)]!;
  console.log(
    `| ${row.name} | ${s.rps.toFixed(0)} | ${s.cpuUs.toFixed(0)} | ${byCpu[0]!.cpuUs.toFixed(0)}–${byCpu.at(-1)!.cpuUs.toFixed(0)} | ${(s.cpuUs / floorCpu).toFixed(2)}× | ${(floorCpu / s.cpuUs).toFixed(2)}× | ${s.p50} / ${s.p99} | ${Math.max(0, s.errors)} | ${Math.round(s.bytes)} | ${Math.max(...row.peakMiB)} | ${median(row.coldStartMs).toFixed(0)} |`,
  );
}
console.log(`\nStart-up: spawn to the first answer, median of ${START_RUNS} starts each`);
console.log('\n| server | first answer ms | runs (ms) |');
console.log('|---|---:|---|');
for (const row of startups) console.log(`| ${row.name} | ${median(row.ms).toFixed(0)} | ${row.ms.map((ms) => ms.toFixed(0)).join(', ')} |`);
const startOf = (prefix: string) => median(startups.find((r) => r.name.startsWith(prefix))!.ms);
console.log(
  `\n\`npm start\` answers first at ${(startOf('ours: npm start') / startOf('fastify')).toFixed(2)}× mercurius's time (target ≤ 1.0×); \`node dist/server.js\` at ${(startOf('ours: node dist') / startOf('floor')).toFixed(2)}× the floor's (target ≤ 2×; ${(startOf(firstAfterBuild) / startOf('floor')).toFixed(2)}× on the first start after a build).`,
);
if (RACE_ROUNDS > 0)
  console.log(
    `\nThe race: the targets' servers side by side, each measured once a round in turn (${RUNS} runs × ${RACE_ROUNDS} rounds; each value a ratio of CPU per request measured seconds apart)`,
  );
if (RACE_ROUNDS > 0) console.log('\n| target | median | range | every round |\n|---|---:|---:|---|');
for (const [name, values] of RACE_ROUNDS > 0 ? raceRatios : []) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(
    `| ${name} | ${median(values).toFixed(2)}× | ${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}× | ${values.map((v) => v.toFixed(2)).join(', ')} |`,
  );
}
if (RACE_ROUNDS > 0) console.log(raceErrors.length === 0 ? '\nNo errors in the race.' : `\nErrors in the race: ${raceErrors.join('; ')}`);
const medianCpu = (name: string) => {
  const row = [...rows.values()].find((r) => r.name.startsWith(name));
  return row ? median(row.samples.map((x) => x.cpuUs)) : null;
};
const viaHive = medianCpu('Hive Gateway');
const oursGraphQL = medianCpu('ours: GraphQL ZIP lookup');
const stockYoga = medianCpu('stock graphql-yoga');
const peerTable = medianCpu(PEER_TABLE_ROW);
const peerObjects = medianCpu(PEER_OBJECTS_ROW);
const peerSqlite = medianCpu(PEER_SQLITE_ROW);
if (peerTable && peerObjects && peerSqlite && oursGraphQL)
  console.log(
    `\n${RACE_ROUNDS > 0 ? "In the table's rows (minutes apart; the race above is the targets' measure): " : ''}GraphQL ZIP lookup: ours ${(peerSqlite / oursGraphQL).toFixed(2)}× mercurius + graphql-jit over SQLite's throughput per CPU (target ≥ 1.5×), ${(peerTable / oursGraphQL).toFixed(2)}× over the same ZIP table in memory (target ≥ 1.0×); ${(peerObjects / oursGraphQL).toFixed(2)}× over a Map of record objects (no target: another data path).`,
  );
const restZip = medianCpu('ours: REST /api/zip/{zip} with a key');
/** A workload's REST ZIP row of ours against the floor's same workload, as throughput per CPU. */
const workloadRatio = (workload: string) => `${(medianCpu(`floor: ${workload}`)! / medianCpu(`ours: REST /api/zip/{zip}, ${workload}`)!).toFixed(2)}×`;
if (restZip)
  console.log(
    `REST ZIP lookup: ${(floorCpu / restZip).toFixed(2)}× the floor's throughput per CPU (a) each ZIP once (target ≥ 0.8×), ${workloadRatio('a bulk client')} (b) a bulk client (≥ 0.8×), ${workloadRatio('a popular app')} (c) a popular app (> 1.0×); resort detail ${(medianCpu('ours: REST /api/resorts/{id}')! / floorCpu).toFixed(2)}× the floor's CPU (≤ 1.2×), nearby ${(medianCpu('ours: REST /api/zip/{zip}/nearby')! / floorCpu).toFixed(2)}× (≤ 3×).`,
  );
const tracedGraphQL = medianCpu('ours, tracing on (every request, OTLP/HTTP): GraphQL');
if (tracedGraphQL && oursGraphQL)
  console.log(
    `Tracing: with OTEL_* unset /graphql costs what the rows above say; with every request traced and exported, ${(tracedGraphQL / oursGraphQL).toFixed(2)}× that CPU.`,
  );
if (stockYoga && oursGraphQL) console.log(`\nGraphQL ZIP lookup: ours ${(stockYoga / oursGraphQL).toFixed(2)}× stock Yoga's throughput per CPU.`);
if (viaHive && oursGraphQL)
  console.log(
    `The same lookup through Hive Gateway over our OpenAPI document costs ${(viaHive / oursGraphQL).toFixed(2)}× the CPU of our /graphql (gateway and upstream together).`,
  );
const miss = cacheMissCost(sampleAnswers);
console.log(
  `\nThe response cache's own work on a miss (a lookup, the frequency sketch, admission declining), full at its default size, in the bench's process: ${miss.bookkeepingUs.toFixed(2)} µs (${miss.spreadUs[0].toFixed(2)}–${miss.spreadUs[1].toFixed(2)}; target ≤ 2 µs).`,
);
if (cacheLines.length > 0)
  console.log(`\nThe response cache in each workload's row (lookups by result, every run):\n${cacheLines.map((l) => `- ${l}`).join('\n')}`);
rmSync(dir, { recursive: true, force: true });
