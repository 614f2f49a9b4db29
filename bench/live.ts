/**
 * npm run bench:live — live conditions fan-out. LIVE_SUBSCRIBERS (default 1,000) SSE subscribers
 * of Subscription.conditionsChanged, each on one of LIVE_RESORTS (default 100) resorts, on one
 * replica, then on two replicas sharing a real redis-server (half the subscribers on each, the
 * run on the first). Per scenario, LIVE_RUNS (default 5) sync runs; for each, the time from a
 * replica publishing or applying the run's window (its /metrics) to the last of its subscribers
 * reading the update, and the replica's CPU for the run with subscribers and for one without
 * (the difference is the fan-out's). RSS is read before the subscribers connect, with them
 * connected, and after the runs. Rows are medians with their range.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildOnce, cpuSeconds, median, memoryMiB, resetPeakMemory, startCommand, startServer, type ServerProcess } from './lib.js';
import { startRedis } from '../test/helpers/redis.js';

const SUBSCRIBERS = Number(process.env.LIVE_SUBSCRIBERS ?? 1000);
const RESORTS = Number(process.env.LIVE_RESORTS ?? 100);
const RUNS = Number(process.env.LIVE_RUNS ?? 5);
const KEY = 'szg_live_bench_admin_key_0123';
const QUERY =
  'subscription Live($ids: [ID!]!) { conditionsChanged(resortIds: $ids) { resortId reason syncedAt conditions { id status snowDepthBase newSnow24h openLifts openTrails temperature } } }';

interface Subscriber {
  /** When each update was read (Date.now()), by reason. */
  seen: { reason: string; at: number }[];
  close(): void;
}

/** One SSE subscription on a connection of its own, parsed as it arrives. */
function subscribe(url: string, resortId: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const seen: Subscriber['seen'] = [];
    const req = http.request(`${url}/graphql`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': KEY },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`subscription answered ${res.statusCode}`));
      let buffer = '';
      let first = true;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = Date.now();
        buffer += chunk;
        const events = buffer.split('\n\n');
        buffer = events.pop()!;
        for (const event of events) {
          const data = event.startsWith('event: next') ? event.slice(event.indexOf('data: ') + 6) : null;
          if (!data) continue;
          const update = (JSON.parse(data) as { data: { conditionsChanged: { reason: string } } }).data.conditionsChanged;
          seen.push({ reason: update.reason, at });
          if (first) {
            first = false;
            resolve({ seen, close: () => req.destroy() });
          }
        }
      });
    });
    req.end(JSON.stringify({ query: QUERY, variables: { ids: [resortId] } }));
  });
}

const get = async (url: string, p: string, init: RequestInit = {}) => fetch(url + p, { ...init, headers: { 'x-api-key': KEY, ...init.headers } });

/** When the replica last published or applied a window (ms), from its /metrics. */
async function windowAt(url: string): Promise<number | null> {
  const text = await (await get(url, '/metrics')).text();
  const m = text.match(/^sync_window_applied_timestamp_seconds ([\d.e+]+)$/m);
  return m ? Number(m[1]) * 1000 : null;
}

/** Starts a run (on `url`) and waits until it has finished; its id. */
async function syncRun(url: string): Promise<number> {
  const before = ((await (await get(url, '/api/sync/status')).json()) as { lastRun: { id: number } | null }).lastRun?.id ?? 0;
  await get(url, '/api/sync/run', { method: 'POST' });
  for (;;) {
    const s = (await (await get(url, '/api/sync/status')).json()) as { state: string; lastRun: { id: number } | null };
    if (s.state === 'IDLE' && (s.lastRun?.id ?? 0) > before) return s.lastRun!.id;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until every subscriber has read `n` SYNC updates, or 30 s pass. */
async function allSynced(subscribers: Subscriber[], n: number): Promise<boolean> {
  const t0 = Date.now();
  while (subscribers.some((s) => s.seen.filter((e) => e.reason === 'SYNC').length < n)) {
    if (Date.now() - t0 > 30_000) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

const stats = (xs: number[]) => (xs.length === 0 ? 'n/a' : `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`);

interface Scenario {
  name: string;
  servers: ServerProcess[];
}

async function measure({ name, servers }: Scenario, resortIds: string[]) {
  const runner = servers[0]!;
  // The run's own CPU with nobody listening, to take from the CPU with subscribers.
  const quietCpu: number[] = [];
  for (const s of servers) resetPeakMemory(s.pid);
  for (let i = 0; i < RUNS; i++) {
    const cpu0 = servers.map((s) => cpuSeconds(s.pid));
    await syncRun(runner.url);
    await new Promise((r) => setTimeout(r, 300));
    quietCpu.push(...servers.map((s, j) => (cpuSeconds(s.pid) - cpu0[j]!) * 1000));
  }
  // What the runs alone take at their peak, with nobody listening: the baseline of the growth.
  const quiet = servers.map((s) => memoryMiB(s.pid));
  const subscribers: Subscriber[][] = servers.map(() => []);
  const t0 = Date.now();
  for (let i = 0; i < SUBSCRIBERS; i += 50) {
    const batch = Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, (_, j) => {
      const k = i + j;
      const replica = k % servers.length;
      return subscribe(servers[replica]!.url, resortIds[k % resortIds.length]!).then((s) => subscribers[replica]!.push(s));
    });
    await Promise.all(batch);
  }
  const connectMs = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 500));
  const rssConnected = servers.map((s) => memoryMiB(s.pid).rss);
  for (const s of servers) resetPeakMemory(s.pid);

  const latency: number[] = [];
  const busyCpu: number[] = [];
  for (let i = 1; i <= RUNS; i++) {
    const cpu0 = servers.map((s) => cpuSeconds(s.pid));
    await syncRun(runner.url);
    if (!(await allSynced(subscribers.flat(), i))) throw new Error(`${name}: not every subscriber had run ${i}'s update within 30 s`);
    await new Promise((r) => setTimeout(r, 300));
    busyCpu.push(...servers.map((s, j) => (cpuSeconds(s.pid) - cpu0[j]!) * 1000));
    for (const [j, s] of servers.entries()) {
      const applied = await windowAt(s.url);
      const last = Math.max(...subscribers[j]!.map((x) => x.seen.filter((e) => e.reason === 'SYNC')[i - 1]!.at));
      if (applied !== null) latency.push(last - applied);
    }
  }
  const rssAfter = servers.map((s) => memoryMiB(s.pid));
  for (const s of subscribers.flat()) s.close();
  const perReplica = SUBSCRIBERS / servers.length;
  const fanoutCpu = busyCpu.map((c, i) => c - quietCpu[i]!);
  return {
    name,
    subscribersPerReplica: perReplica,
    connectMs,
    latency: stats(latency),
    latencyMax: Math.max(...latency),
    runCpuQuiet: stats(quietCpu),
    runCpuWithSubscribers: stats(busyCpu),
    fanoutCpuPerUpdateUs: stats(fanoutCpu.map((ms) => (ms * 1000) / perReplica)),
    rss: servers.map(
      (_, j) =>
        `${quiet[j]!.rss} MiB after the runs alone (their peak ${quiet[j]!.peak}) → ${rssConnected[j]} connected → ${rssAfter[j]!.rss} after the runs with them (peak ${rssAfter[j]!.peak})`,
    ),
    // The subscribers' cost: the runs' peak with them against the same runs' peak without.
    rssGrowthMiB: Math.max(...servers.map((_, j) => rssAfter[j]!.peak - quiet[j]!.peak)),
  };
}

await buildOnce();
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-live-bench-'));
const env = (extra: Record<string, string>) => ({
  ...startCommand().env,
  LOG_LEVEL: 'warn',
  API_ADMIN_KEYS: KEY,
  API_KEYS_RATE: '1000000',
  API_KEYS_QUOTA: '1000000000',
  STREAMS_PER_KEY: '1000',
  SYNC_INTERVAL_MINUTES: '0',
  ...extra,
});
const probe = { path: '/readyz' };
const results = [];
const redis = await startRedis();
try {
  const one = await startServer(startCommand().args, env({ DB_PATH: path.join(dir, 'one.sqlite') }), probe);
  const resortIds = ((await (await get(one.url, '/api/resorts?limit=200')).json()) as { resorts: { id: string }[] }).resorts.slice(0, RESORTS).map((r) => r.id);
  try {
    results.push(await measure({ name: '1 replica', servers: [one] }, resortIds));
  } finally {
    await one.stop();
  }
  const two = await Promise.all(
    [0, 1].map((i) =>
      startServer(startCommand().args, env({ DB_PATH: path.join(dir, `replica-${i}.sqlite`), REDIS_URL: redis.url, REPLICA_ID: `bench-${i}` }), probe),
    ),
  );
  try {
    results.push(await measure({ name: '2 replicas (Redis)', servers: two }, resortIds));
  } finally {
    await Promise.all(two.map((s) => s.stop()));
  }
} finally {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`\nLive conditions: ${SUBSCRIBERS} SSE subscribers on ${RESORTS} resorts, ${RUNS} runs per scenario (median (min–max))\n`);
for (const r of results) {
  console.log(`## ${r.name}: ${r.subscribersPerReplica} subscribers per replica (connected in ${r.connectMs} ms)`);
  console.log(`  window applied → last subscriber has the update: ${r.latency} ms (worst ${r.latencyMax} ms; target ≤ 1000)`);
  console.log(`  replica CPU per run: ${r.runCpuQuiet} ms with nobody listening, ${r.runCpuWithSubscribers} ms with the subscribers`);
  console.log(`  fan-out CPU per subscriber update: ${r.fanoutCpuPerUpdateUs} µs`);
  for (const [i, line] of r.rss.entries()) console.log(`  replica ${i} RSS: ${line}`);
  console.log(`  peak RSS growth for the subscribers (runs with them against the same runs without): ${r.rssGrowthMiB} MiB (target ≤ 50)`);
}
