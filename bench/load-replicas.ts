/**
 * npm run load:replicas — `npm run load`'s mix spread over LOAD_REPLICAS (default 3) replica
 * processes, each with its own SQLite file, sharing one real redis-server (Debian's) for keys,
 * quotas, sync and events. Each replica gets an equal share of LOAD_CONNECTIONS; a heavy client
 * works on the first. Reports throughput, latency, errors (must be 0), each replica's memory, and
 * whether the quota count in Redis equals the requests answered (it must: one shared count).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { buildOnce, freePort, memoryMiB, serverCommand, startServer } from './lib.js';
import { errorsOf, heavyRequests, mix, mixedRequests } from './load-mix.js';
import { hashApiKey } from '../src/auth/api-key.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 30);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 50);
const replicaCount = Number(process.env.LOAD_REPLICAS ?? 3);
const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

await buildOnce();
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-load-replicas-'));
const redisPort = await freePort();
const redisProcess = spawn(REDIS_SERVER, ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
const REDIS_URL = `redis://127.0.0.1:${redisPort}`;
const redis = new Redis(REDIS_URL, { lazyConnect: true });
for (let i = 0; ; i++) {
  try {
    await redis.connect();
    break;
  } catch {
    if (i > 100) throw new Error(`redis-server at ${REDIS_URL} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Keys made once, in Redis, seen by every replica: the mix's (a quota far above what it sends)
// and the heavy client's (an ordinary free plan).
const makeKey = (name: string, quota: string, rate: string) => {
  const out = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', 'create', '--name', name, '--quota', quota, '--rate', rate], { env: { ...process.env, REDIS_URL }, encoding: 'utf8' });
  const key = out.stdout.match(/szg_[\w-]+/)?.[0];
  if (!key) throw new Error(`could not create the key ${name}: ${out.stderr}`);
  return key;
};
const KEY = makeKey('load', '1000000000', '1000000');
const HEAVY_KEY = makeKey('heavy', '1000000000', '25');

const servers = await Promise.all(
  Array.from({ length: replicaCount }, (_, i) =>
    startServer(
      serverCommand(),
      { DB_PATH: path.join(dir, `replica-${i}.sqlite`), REDIS_URL, REPLICA_ID: `replica-${i}`, LOG_LEVEL: 'warn', SYNC_INTERVAL_MINUTES: '0' },
      { path: '/health', headers: { 'x-api-key': KEY } },
    ),
  ),
);

async function run(withHeavy: boolean) {
  const share = Math.max(1, Math.round(connections / replicaCount));
  const normal = servers.map((s) => autocannon({ url: s.url, connections: share, duration: seconds, headers: { 'x-api-key': KEY }, requests: mixedRequests() }));
  const heavy = withHeavy
    ? autocannon({ url: servers[0]!.url, connections: 4, duration: seconds, headers: { 'x-api-key': HEAVY_KEY, 'content-type': 'application/json' }, requests: heavyRequests() })
    : null;
  const [results, heavyResult] = await Promise.all([Promise.all(normal), heavy]);
  return { results, heavyResult };
}

const month = new Date().toISOString().slice(0, 7);
const usageOfKey = async () => {
  const id = await redis.hget(`szg:key:${hashApiKey(KEY)}`, 'id');
  return Number((await redis.get(`szg:usage:${id}:${month}`)) ?? 0);
};

const plain = await run(false);
const counted = await usageOfKey();
const mixed = await run(true);
const memory = servers.map((s) => memoryMiB(s.pid));
await Promise.all(servers.map((s) => s.stop()));
redis.disconnect();
redisProcess.kill('SIGTERM');
rmSync(dir, { recursive: true, force: true });

const sum = (rs: autocannon.Result[], f: (r: autocannon.Result) => number) => rs.reduce((n, r) => n + f(r), 0);
const worst = (rs: autocannon.Result[], f: (r: autocannon.Result) => number) => Math.max(...rs.map(f));
const row = (label: string, f: (rs: autocannon.Result[]) => string | number) => console.log(`| ${label} | ${f(plain.results)} | ${f(mixed.results)} |`);
console.log(`\n| load over ${replicaCount} replicas + Redis (${seconds} s, ${connections} connections, ${mix.length} paths mixed) | alone | beside a heavy client |\n|---|---:|---:|`);
row('requests/s (mean, all replicas)', (rs) => sum(rs, (r) => r.requests.average).toFixed(0));
row('requests total', (rs) => sum(rs, (r) => r.requests.total));
row('latency p50 / p90 / p99 / max (ms, worst replica)', (rs) => `${worst(rs, (r) => r.latency.p50)} / ${worst(rs, (r) => r.latency.p90)} / ${worst(rs, (r) => r.latency.p99)} / ${worst(rs, (r) => r.latency.max)}`);
row('errors (connection errors + timeouts + non-2xx)', (rs) => sum(rs, errorsOf));
const answered = sum(plain.results, (r) => r['2xx']);
console.log(`\nQuota count in Redis after the first run: ${counted}; requests answered: ${answered} (${counted === answered ? 'exact' : 'NOT EXACT'}).`);
const heavy = mixed.heavyResult!;
console.log(`The heavy client (on replica 0): ${heavy.requests.total} requests, ${heavy['2xx']} answered, ${heavy.non2xx} refused, p99 ${heavy.latency.p99} ms.`);
console.log(`Replica RSS now / peak (MiB): ${memory.map((m) => `${m.rss} / ${m.peak}`).join(', ')}`);
const errors = sum(plain.results, errorsOf) + sum(mixed.results, errorsOf);
process.exit(errors === 0 && counted === answered ? 0 : 1);
