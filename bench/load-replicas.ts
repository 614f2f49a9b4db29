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
import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { buildOnce, memoryMiB, startCommand, startServer } from './lib.js';
import { startRedis } from '../test/helpers/redis.js';
import { errorsOf, heavyRequests, mix, mixedRequests } from './load-mix.js';
import { hashApiKey } from '../src/auth/api-key.js';

const seconds = Number(process.env.LOAD_SECONDS ?? 30);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 50);
const replicaCount = Number(process.env.LOAD_REPLICAS ?? 3);

await buildOnce();
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-load-replicas-'));
// A real redis-server (Debian's), on a socket with its own data directory.
const redisServer = await startRedis();
const REDIS_URL = redisServer.url;
const redis = new Redis({ path: REDIS_URL.slice('unix://'.length) });

// Keys made once, in Redis, seen by every replica: the mix's (a quota far above what it sends)
// and the heavy client's (an ordinary free plan).
const makeKey = (name: string, quota: string, rate: string) => {
  const out = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/keys.ts', 'create', '--name', name, '--quota', quota, '--rate', rate], {
    env: { ...process.env, REDIS_URL },
    encoding: 'utf8',
  });
  const key = out.stdout.match(/szg_[\w-]+/)?.[0];
  if (!key) throw new Error(`could not create the key ${name}: ${out.stderr}`);
  return key;
};
const KEY = makeKey('load', '1000000000', '1000000');
const HEAVY_KEY = makeKey('heavy', '1000000000', '25');

const servers = await Promise.all(
  Array.from({ length: replicaCount }, (_, i) =>
    startServer(
      startCommand().args,
      {
        ...startCommand().env,
        DB_PATH: path.join(dir, `replica-${i}.sqlite`),
        REDIS_URL,
        REPLICA_ID: `replica-${i}`,
        LOG_LEVEL: 'warn',
        SYNC_INTERVAL_MINUTES: '0',
      },
      { path: '/health', headers: { 'x-api-key': KEY } },
    ),
  ),
);

// Ready as a load balancer sees it: each replica has its weather window.
for (const s of servers) {
  while ((await fetch(`${s.url}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 50));
}

async function run(withHeavy: boolean) {
  const share = Math.max(1, Math.round(connections / replicaCount));
  const normal = servers.map((s) =>
    autocannon({ url: s.url, connections: share, duration: seconds, headers: { 'x-api-key': KEY }, requests: mixedRequests() }),
  );
  const heavy = withHeavy
    ? autocannon({
        url: servers[0]!.url,
        connections: 4,
        duration: seconds,
        headers: { 'x-api-key': HEAVY_KEY, 'content-type': 'application/json' },
        requests: heavyRequests(),
      })
    : null;
  const [results, heavyResult] = await Promise.all([Promise.all(normal), heavy]);
  return { results, heavyResult };
}

/** A key with a quota of 500 and 1,000 requests at once over every replica: exactly 500 answered? */
async function quotaCheck(): Promise<{ answered: number; refused: number; counted: number }> {
  const key = makeKey('quota-check', '500', '1000000');
  const codes = await Promise.all(
    Array.from({ length: 1000 }, (_, i) => fetch(`${servers[i % servers.length]!.url}/api/zip/90210`, { headers: { 'x-api-key': key } }).then((r) => r.status)),
  );
  const id = await redis.hget(`szg:key:${hashApiKey(key)}`, 'id');
  const counted = Number((await redis.get(`szg:usage:${id}:${new Date().toISOString().slice(0, 7)}`)) ?? 0);
  return { answered: codes.filter((c) => c === 200).length, refused: codes.filter((c) => c === 429).length, counted };
}

const plain = await run(false);
const mixed = await run(true);
const quota = await quotaCheck();
const memory = servers.map((s) => memoryMiB(s.pid));
await Promise.all(servers.map((s) => s.stop()));
redis.disconnect();
await redisServer.stop();
rmSync(dir, { recursive: true, force: true });

const sum = (rs: autocannon.Result[], f: (r: autocannon.Result) => number) => rs.reduce((n, r) => n + f(r), 0);
const worst = (rs: autocannon.Result[], f: (r: autocannon.Result) => number) => Math.max(...rs.map(f));
const row = (label: string, f: (rs: autocannon.Result[]) => string | number) => console.log(`| ${label} | ${f(plain.results)} | ${f(mixed.results)} |`);
console.log(
  `\n| load over ${replicaCount} replicas + Redis (${seconds} s, ${connections} connections, ${mix.length} paths mixed) | alone | beside a heavy client |\n|---|---:|---:|`,
);
row('requests/s (mean, all replicas)', (rs) => sum(rs, (r) => r.requests.average).toFixed(0));
row('requests total', (rs) => sum(rs, (r) => r.requests.total));
row(
  'latency p50 / p90 / p99 / max (ms, worst replica)',
  (rs) => `${worst(rs, (r) => r.latency.p50)} / ${worst(rs, (r) => r.latency.p90)} / ${worst(rs, (r) => r.latency.p99)} / ${worst(rs, (r) => r.latency.max)}`,
);
row('errors (connection errors + timeouts + non-2xx)', (rs) => sum(rs, errorsOf));
const exact = quota.answered === 500 && quota.refused === 500 && quota.counted === 500;
console.log(
  `\nQuota check (a key with a quota of 500, 1,000 requests at once over ${replicaCount} replicas): ${quota.answered} answered, ${quota.refused} refused, ${quota.counted} counted in Redis (${exact ? 'exact' : 'NOT EXACT'}).`,
);
const heavy = mixed.heavyResult!;
console.log(
  `The heavy client (on replica 0): ${heavy.requests.total} requests, ${heavy['2xx']} answered, ${heavy.non2xx} refused, p99 ${heavy.latency.p99} ms.`,
);
console.log(`Replica RSS now / peak (MiB): ${memory.map((m) => `${m.rss} / ${m.peak}`).join(', ')}`);
const errors = sum(plain.results, errorsOf) + sum(mixed.results, errorsOf);
process.exit(errors === 0 && exact ? 0 : 1);
