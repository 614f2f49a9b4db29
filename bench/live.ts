/**
 * npm run bench:live — live conditions fan-out. LIVE_SUBSCRIBERS (default 10,000) subscriptions of
 * Subscription.conditionsChanged on one replica, half over SSE (a connection each) and half over
 * WebSockets (LIVE_PER_SOCKET, 10, on each socket), each on LIVE_EACH (3) resorts drawn from
 * LIVE_RESORTS (100); then LIVE_SUBSCRIBERS / 5 on two replicas sharing a real redis-server (half
 * on each, the run on the first). Per scenario, LIVE_RUNS (default 3) sync runs; each changes every
 * report (syncedAt moves), so each subscription gets one update per resort per run; LIVE_WARMUP (1) runs
 * before them, with the subscribers, are not measured. Measured, per run:
 * - window applied → last update read: from the replica publishing or applying the run's window
 *   (its /metrics) to the last of its subscribers reading the update (the bench's clock);
 * - fan-out CPU per subscriber update: the replica's own count (live_fanout_cpu_seconds over
 *   live_updates_sent: reports made, updates executed, serialized and written), and, as a check,
 *   the replica's CPU (/proc) for the run with the subscribers against the same run without;
 * - another client's requests (GET /api/zip, one at a time, all along) sent while the fan-out ran:
 *   p99 and max;
 * - RSS per idle subscription: the replica's RSS with every subscription connected and settled,
 *   against before they connected.
 * Rows are medians of the runs with their range.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import WebSocket from 'ws';
import { buildOnce, cpuSeconds, median, memoryMiB, shuffled, startCommand, startServer, type ServerProcess } from './lib.js';
import { startRedis } from '../test/helpers/redis.js';

const SUBSCRIBERS = Number(process.env.LIVE_SUBSCRIBERS ?? 10_000);
const RESORTS = Number(process.env.LIVE_RESORTS ?? 100);
const EACH = Number(process.env.LIVE_EACH ?? 3);
const PER_SOCKET = Number(process.env.LIVE_PER_SOCKET ?? 10);
const RUNS = Number(process.env.LIVE_RUNS ?? 3);
const WARMUP = Number(process.env.LIVE_WARMUP ?? 1);
const KEY = 'szg_live_bench_admin_key_0123';
const QUERY =
  'subscription Live($ids: [ID!]!) { conditionsChanged(resortIds: $ids) { resortId reason syncedAt conditions { id status snowDepthBase newSnow24h openLifts openTrails temperature } } }';

/** One subscription's updates as read: when each SYNC update arrived (Date.now()). */
interface Subscription {
  syncs: number[];
  /** Resolves with the first update (the subscription is live). */
  live: Promise<void>;
}

interface Client {
  subscriptions: Subscription[];
  close(): void;
}

function subscription(): Subscription & { seen(reason: string, at: number): void } {
  let ready!: () => void;
  const s = {
    syncs: [] as number[],
    live: new Promise<void>((resolve) => (ready = resolve)),
    seen(reason: string, at: number) {
      if (reason === 'SYNC') s.syncs.push(at);
      ready();
    },
  };
  return s;
}

// The reason is read from the text: parsing every update would be the bench's work, not the server's.
const REASON = /"reason":"(\w+)"/;
const reasonOf = (json: string) => REASON.exec(json)?.[1] ?? '';

/** One SSE subscription on a connection of its own, parsed as it arrives. */
function sse(url: string, ids: string[]): Promise<Client> {
  return new Promise((resolve, reject) => {
    const sub = subscription();
    const req = http.request(`${url}/graphql`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': KEY },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`an SSE subscription answered ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = Date.now();
        buffer += chunk;
        const events = buffer.split('\n\n');
        buffer = events.pop()!;
        for (const event of events) if (event.startsWith('event: next')) sub.seen(reasonOf(event.slice(event.indexOf('data: ') + 6)), at);
      });
      resolve({ subscriptions: [sub], close: () => req.destroy() });
    });
    req.end(JSON.stringify({ query: QUERY, variables: { ids } }));
  });
}

/** One WebSocket (graphql-transport-ws) carrying a subscription for each list of ids. */
function ws(url: string, lists: string[][]): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: { 'x-api-key': KEY } });
    const subs = lists.map(() => subscription());
    socket.on('error', reject);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    socket.on('message', (data: Buffer) => {
      const at = Date.now();
      const text = String(data);
      const message = JSON.parse(text) as { type: string; id?: string; payload?: unknown };
      if (message.type === 'connection_ack') {
        for (const [i, ids] of lists.entries())
          socket.send(JSON.stringify({ id: String(i), type: 'subscribe', payload: { query: QUERY, variables: { ids } } }));
        resolve({ subscriptions: subs, close: () => socket.terminate() });
      } else if (message.type === 'next') subs[Number(message.id)]!.seen(reasonOf(text), at);
      else if (message.type === 'error') reject(new Error(`a WebSocket subscription was refused: ${text}`));
    });
    socket.on('close', (code, reason) => reject(new Error(`a WebSocket closed: ${code} ${reason}`)));
  });
}

const get = async (url: string, p: string, init: RequestInit = {}) => fetch(url + p, { ...init, headers: { 'x-api-key': KEY, ...init.headers } });

/** A number from the replica's /metrics. */
async function metric(url: string, name: string): Promise<number | null> {
  const text = await (await get(url, '/metrics')).text();
  const m = text.match(new RegExp(`^${name} ([\\d.e+-]+)$`, 'm'));
  return m ? Number(m[1]) : null;
}

/** Starts a run (on `url`) and waits until it has finished. */
async function syncRun(url: string): Promise<void> {
  const before = ((await (await get(url, '/api/sync/status')).json()) as { lastRun: { id: number } | null }).lastRun?.id ?? 0;
  await get(url, '/api/sync/run', { method: 'POST' });
  for (;;) {
    const s = (await (await get(url, '/api/sync/status')).json()) as { state: string; lastRun: { id: number } | null };
    if (s.state === 'IDLE' && (s.lastRun?.id ?? 0) > before) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until every subscription has read `n` SYNC updates per resort, or 60 s pass. */
async function allSynced(subs: Subscription[], n: number): Promise<void> {
  const t0 = Date.now();
  while (subs.some((s) => s.syncs.length < n * EACH)) {
    if (Date.now() - t0 > 60_000) throw new Error(`not every subscription had run ${n}'s updates within 60 s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Another client: one GET at a time, all along, each with when it was sent and how long it took.
 * It runs on a thread of its own: the bench's main thread reads every subscriber's updates, and a
 * GET answered while that thread was busy would count the bench's delay as the server's.
 */
const STEADY_CLIENT = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const samples = [];
let stop = false;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const one = () => new Promise((resolve, reject) => {
  const at = Date.now();
  const t0 = performance.now();
  http.get(workerData.url + '/api/zip/05401', { agent, headers: { 'x-api-key': workerData.key } }, (res) => {
    res.resume();
    res.on('end', () => { samples.push({ at, ms: performance.now() - t0 }); resolve(); });
  }).on('error', reject);
});
parentPort.on('message', () => { stop = true; });
(async () => {
  while (!stop) {
    await one();
    await new Promise((r) => setTimeout(r, 5));
  }
  agent.destroy();
  parentPort.postMessage(samples);
})();
`;

function steadyClient(url: string) {
  const worker = new Worker(STEADY_CLIENT, { eval: true, workerData: { url, key: KEY } });
  const samples = new Promise<{ at: number; ms: number }[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    /** Stops it and gives every GET it sent. */
    stop: async () => {
      worker.postMessage('stop');
      const all = await samples;
      await worker.terminate();
      return all;
    },
  };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;
const stats = (xs: number[], digits = 0) =>
  xs.length === 0 ? 'n/a' : `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

async function measure(name: string, servers: ServerProcess[], resortIds: string[], subscribers: number) {
  const runner = servers[0]!;
  // The runs' own CPU with nobody listening, to take from the CPU with subscribers.
  const quietCpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpu0 = servers.map((s) => cpuSeconds(s.pid));
    await syncRun(runner.url);
    await new Promise((r) => setTimeout(r, 300));
    quietCpu.push(...servers.map((s, j) => (cpuSeconds(s.pid) - cpu0[j]!) * 1000));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const rssBefore = servers.map((s) => memoryMiB(s.pid).rss);

  // Subscriptions: each on EACH resorts, in a stable shuffled order; SSE first, then sockets.
  const pick = (k: number) => shuffled(resortIds, k + 1).slice(0, EACH);
  const clients: Client[][] = servers.map(() => []);
  const t0 = Date.now();
  const overSse = Math.floor(subscribers / 2);
  for (let k = 0; k < subscribers; ) {
    const batch: Promise<void>[] = [];
    for (let b = 0; b < 100 && k < subscribers; b++) {
      const replica = batch.length % servers.length;
      const url = servers[replica]!.url;
      if (k < overSse) batch.push(sse(url, pick(k++)).then((c) => void clients[replica]!.push(c)));
      else {
        const lists = Array.from({ length: Math.min(PER_SOCKET, subscribers - k) }, () => pick(k++));
        batch.push(ws(url, lists).then((c) => void clients[replica]!.push(c)));
      }
    }
    await Promise.all(batch);
  }
  const subsOf = (j: number) => clients[j]!.flatMap((c) => c.subscriptions);
  const live = Promise.all(clients.flat().flatMap((c) => c.subscriptions.map((s) => s.live)));
  await Promise.race([
    live,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`${name}: not every subscription had its first update within 120 s`)), 120_000).unref()),
  ]);
  const connectMs = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 3000));
  const rssConnected = servers.map((s) => memoryMiB(s.pid).rss);

  // Warm-up runs, not measured: the first fan-out after thousands connected also collects what
  // connecting left behind and compiles the update path; the rows are the steady state.
  for (let i = 1; i <= WARMUP; i++) {
    await syncRun(runner.url);
    await allSynced(
      clients.flat().flatMap((c) => c.subscriptions),
      i,
    );
  }
  await new Promise((r) => setTimeout(r, 300));

  const other = steadyClient(runner.url);
  const latency: number[] = [];
  const busyCpu: number[] = [];
  const perUpdate: number[] = [];
  const duringP99: number[] = [];
  const duringMax: number[] = [];
  const fanOuts: { applied: number; last: number }[] = [];
  for (let i = 1 + WARMUP; i <= RUNS + WARMUP; i++) {
    const cpu0 = servers.map((s) => cpuSeconds(s.pid));
    const counted0 = await Promise.all(
      servers.map(async (s) => ({ cpu: await metric(s.url, 'live_fanout_cpu_seconds'), sent: await metric(s.url, 'live_updates_sent') })),
    );
    await syncRun(runner.url);
    await allSynced(
      clients.flat().flatMap((c) => c.subscriptions),
      i,
    );
    await new Promise((r) => setTimeout(r, 300));
    busyCpu.push(...servers.map((s, j) => (cpuSeconds(s.pid) - cpu0[j]!) * 1000));
    for (const [j, s] of servers.entries()) {
      const [cpu1, sent1] = [await metric(s.url, 'live_fanout_cpu_seconds'), await metric(s.url, 'live_updates_sent')];
      const { cpu: cpuStart, sent: sentStart } = counted0[j]!;
      if (cpu1 !== null && cpuStart !== null && sent1 !== null && sentStart !== null && sent1 > sentStart)
        perUpdate.push(((cpu1 - cpuStart) * 1e6) / (sent1 - sentStart));
      const applied = ((await metric(s.url, 'sync_window_applied_timestamp_seconds')) ?? 0) * 1000;
      const last = Math.max(...subsOf(j).map((x) => x.syncs[i * EACH - 1]!));
      latency.push(last - applied);
      if (j === 0) fanOuts.push({ applied, last });
    }
  }
  const samples = await other.stop();
  for (const { applied, last } of fanOuts) {
    const during = samples.filter((x) => x.at >= applied - 50 && x.at <= last).map((x) => x.ms);
    if (during.length > 0) {
      duringP99.push(pct(during, 0.99));
      duringMax.push(Math.max(...during));
    }
  }
  for (const c of clients.flat()) c.close();
  const perReplica = subscribers / servers.length;
  const updatesPerRun = perReplica * EACH;
  const fanoutCpu = busyCpu.map((c, i) => ((c - quietCpu[i]!) * 1000) / updatesPerRun);
  return {
    name,
    perReplica,
    connectMs,
    latency: stats(latency),
    latencyMax: Math.max(...latency),
    perUpdate: stats(perUpdate, 1),
    perUpdateByRunCpu: stats(fanoutCpu, 1),
    runCpuQuiet: stats(quietCpu),
    runCpuBusy: stats(busyCpu),
    duringP99: stats(duringP99, 1),
    duringMax: stats(duringMax, 1),
    others: samples.length,
    rss: servers.map((_, j) => `${rssBefore[j]} → ${rssConnected[j]} MiB`),
    rssPerSubscriberKiB: Math.max(...servers.map((_, j) => ((rssConnected[j]! - rssBefore[j]!) * 1024) / perReplica)),
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
  // Room for every subscription and connection: the bench measures the fan-out, not the caps.
  MAX_CONNECTIONS: '16384',
  MAX_STREAMS: String(SUBSCRIBERS + 1000),
  STREAMS_PER_KEY: String(SUBSCRIBERS + 1000),
  STREAMS_PER_ADDRESS: String(SUBSCRIBERS + 1000),
  SYNC_INTERVAL_MINUTES: '0',
  ...extra,
});
const probe = { path: '/readyz' };
const results = [];
const redis = await startRedis();
try {
  // LIVE_NODE_FLAGS: node flags for the one replica besides npm start's (--cpu-prof, --trace-gc),
  // after them so that one of theirs can be turned back (the script's path stays last).
  const flags = (process.env.LIVE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const one = await startServer(
    [...startCommand().args.slice(0, -1), ...flags, ...startCommand().args.slice(-1)],
    env({ DB_PATH: path.join(dir, 'one.sqlite') }),
    probe,
  );
  const resortIds = ((await (await get(one.url, '/api/resorts?limit=200')).json()) as { resorts: { id: string }[] }).resorts.slice(0, RESORTS).map((r) => r.id);
  try {
    results.push(await measure('1 replica', [one], resortIds, SUBSCRIBERS));
    console.error(JSON.stringify(results.at(-1)));
  } finally {
    await one.stop();
  }
  // LIVE_REPLICAS=1: the one replica only.
  if (process.env.LIVE_REPLICAS !== '1') {
    const two = await Promise.all(
      [0, 1].map((i) =>
        startServer(startCommand().args, env({ DB_PATH: path.join(dir, `replica-${i}.sqlite`), REDIS_URL: redis.url, REPLICA_ID: `bench-${i}` }), probe),
      ),
    );
    try {
      results.push(await measure('2 replicas (Redis)', two, resortIds, Math.round(SUBSCRIBERS / 5)));
      console.error(JSON.stringify(results.at(-1)));
    } finally {
      await Promise.all(two.map((s) => s.stop()));
    }
  }
} finally {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  `\nLive conditions: subscriptions of ${EACH} resorts each (of ${RESORTS}), half over SSE, half over WebSockets (${PER_SOCKET} a socket); ${RUNS} runs per scenario after ${WARMUP} warm-up (median (min–max))\n`,
);
for (const r of results) {
  console.log(`## ${r.name}: ${r.perReplica} subscriptions per replica (connected in ${r.connectMs} ms)`);
  console.log(`  window applied → last subscriber has the update: ${r.latency} ms (worst ${r.latencyMax} ms; target ≤ 1000)`);
  console.log(`  fan-out CPU per subscriber update, the replica's count: ${r.perUpdate} µs (target ≤ 25)`);
  console.log(`  fan-out CPU per subscriber update, run CPU with subscribers against without: ${r.perUpdateByRunCpu} µs`);
  console.log(`  replica CPU per run: ${r.runCpuQuiet} ms with nobody listening, ${r.runCpuBusy} ms with the subscribers`);
  console.log(`  another client's GETs during the fan-out: p99 ${r.duringP99} ms, max ${r.duringMax} ms (targets ≤ 50, ≤ 150; ${r.others} GETs in all)`);
  for (const [i, line] of r.rss.entries()) console.log(`  replica ${i} RSS before → with the subscriptions connected: ${line}`);
  console.log(`  RSS per idle subscription: ${r.rssPerSubscriberKiB.toFixed(1)} KiB (target ≤ 16)`);
}
