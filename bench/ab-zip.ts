/**
 * npm run bench:ab -- <checkout> [<checkout> …] — REST ZIP lookups, each ZIP once, on several
 * builds side by side: each server started, warmed alike (AB_WARM_SECONDS of other ZIPs), then
 * AB_ROUNDS rounds measuring each in turn (order reversed every other round) for AB_SECONDS;
 * server CPU per request from /proc, median over rounds with the range. AB_CACHE_MB sets
 * RESPONSE_CACHE_MB for all (0: the path without the response cache). AB_SUFFIX follows the ZIP in
 * each path (e.g. `/nearby?radius=25&limit=50`: nearby instead of lookups). For finding which change
 * moved a row of `npm run bench` without the whole table's half hour.
 */
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchDatabase, cpuSeconds, median, startCommand, startServer, type ServerProcess } from './lib.js';

const checkouts = process.argv.slice(2).map((p) => path.resolve(p));
if (checkouts.length === 0) throw new Error('name the checkouts to compare (each with dist/ built)');
const SECONDS = Number(process.env.AB_SECONDS ?? 4);
const WARM = Number(process.env.AB_WARM_SECONDS ?? 3);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 5);
const KEY = 'szg_ab_bench_key_0123456789';
const SUFFIX = process.env.AB_SUFFIX ?? '';
const { dir, dbPath: source, zips } = benchDatabase('ab');
const warmZips = zips.slice(0, 5000);
let next = 5000;

async function load(server: ServerProcess, list: string[] | null, seconds: number): Promise<{ cpuUs: number; requests: number }> {
  const cpu0 = cpuSeconds(server.pid);
  const result = await autocannon({
    url: server.url,
    connections: 10,
    duration: seconds,
    headers: { 'x-api-key': KEY },
    requests: [
      { setupRequest: (r) => ({ ...r, path: `/api/zip/${list ? list[next++ % list.length] : zips[5000 + (next++ % (zips.length - 5000))]}${SUFFIX}` }) },
    ],
  });
  return { cpuUs: ((cpuSeconds(server.pid) - cpu0) * 1e6) / Math.max(1, result.requests.total), requests: result.requests.total };
}

const servers: ServerProcess[] = [];
try {
  for (const [i, root] of checkouts.entries()) {
    const dbPath = path.join(dir, `ab-${i}.sqlite`);
    copyFileSync(source, dbPath);
    const cmd = startCommand(root);
    servers.push(
      await startServer(
        [...cmd.args.slice(0, -1), path.join(root, 'dist', 'server.js')],
        {
          ...cmd.env,
          DB_PATH: dbPath,
          LOG_LEVEL: 'silent',
          API_KEYS: KEY,
          API_KEYS_QUOTA: '1000000000',
          API_KEYS_RATE: '1000000',
          SYNC_INTERVAL_MINUTES: '0',
          ...(process.env.AB_CACHE_MB ? { RESPONSE_CACHE_MB: process.env.AB_CACHE_MB } : {}),
        },
        { path: '/readyz' },
      ),
    );
  }
  for (const s of servers) await load(s, warmZips, WARM);
  const samples: number[][] = servers.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = servers.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) samples[i]!.push((await load(servers[i]!, null, SECONDS)).cpuUs);
  }
  for (const [i, root] of checkouts.entries())
    console.log(`${root}: ${median(samples[i]!).toFixed(1)} µs/req (${Math.min(...samples[i]!).toFixed(1)}–${Math.max(...samples[i]!).toFixed(1)})`);
} finally {
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
