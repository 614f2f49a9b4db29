/**
 * npm run bench:faults — faults under load, as operators meet them: three replicas behind Debian's
 * nginx (test/helpers/nginx.ts: the example's configuration, idempotent requests retried on the
 * next replica), Redis through Sentinel (a primary, a replica, three Sentinels), `npm run load`'s
 * mix through nginx. Each fault gets a phase of its own, FAULT_PHASE_SECONDS long (default 14),
 * the fault 3 s in: none; `kill -9` of a replica (started again 4 s later); a SIGTERM rolling
 * restart of all three; `kill -9` of the Redis primary; Redis gone (both nodes frozen) for 10 s.
 * Reports, per phase: requests, failed (connection errors + time-outs + non-2xx), p99 and max;
 * then the load key's count in Redis against the requests answered, and Redis commands per request.
 */
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { buildOnce, freePort, startCommand, startServer, type ServerProcess } from './lib.js';
import { errorsOf, mixedRequests } from './load-mix.js';
import { startSentinels } from '../test/helpers/redis.js';
import { startNginx } from '../test/helpers/nginx.js';
import { hashApiKey } from '../src/auth/api-key.js';

const phaseSeconds = Number(process.env.FAULT_PHASE_SECONDS ?? 14);
const connections = Number(process.env.LOAD_CONNECTIONS ?? 24);
const REPLICAS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

await buildOnce();
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-faults-'));
const sentinels = await startSentinels();
const env = { ...sentinels.env };
const makeKey = (name: string, ...more: string[]) => {
  const out = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'src/cli/keys.ts', 'create', '--name', name, '--quota', '1000000000', '--rate', '1000000', ...more],
    {
      env: { ...process.env, ...env, DB_PATH: path.join(dir, 'cli.sqlite') },
      encoding: 'utf8',
    },
  );
  const key = out.stdout.match(/szg_[\w-]+/)?.[0];
  if (!key) throw new Error(`could not create the key ${name}: ${out.stderr}`);
  return key;
};
const KEY = makeKey('faults');
const ADMIN = makeKey('faults-admin', '--scope', 'admin', '--streams', '100');

const ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()));
const start = (i: number) =>
  startServer(
    startCommand().args,
    {
      ...startCommand().env,
      ...env,
      DB_PATH: path.join(dir, `replica-${i}.sqlite`),
      REPLICA_ID: `replica-${i}`,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      SYNC_INTERVAL_MINUTES: '0',
    },
    { path: '/readyz' },
    process.execPath,
    ports[i],
  );
const replicas: ServerProcess[] = [];
for (let i = 0; i < REPLICAS; i++) replicas.push(await start(i));
const nginx = await startNginx(ports);

const primaryLink = async () => {
  const port = await sentinels.primaryPort();
  return new Redis({ host: '127.0.0.1', port });
};
const commandsNow = async () => {
  const r = await primaryLink();
  const info = await r.info('commandstats');
  r.disconnect();
  return [...info.matchAll(/calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
};

/** What failed: statuses other than 2xx, connection errors, time-outs. */
const failuresOf = (r: autocannon.Result) =>
  [
    ...Object.entries(r.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, { count }]) => `${count}× ${code}`),
    ...(r.errors - r.timeouts > 0 ? [`${r.errors - r.timeouts} connection errors`] : []),
    ...(r.timeouts ? [`${r.timeouts} time-outs`] : []),
  ].join(', ') || 'none';

interface Phase {
  name: string;
  result: autocannon.Result;
  cut: string;
  /** Subscriber streams that ended in the phase (each then subscribed again). */
  reconnects: number;
  /** The sync run asked for after the fault, once finished; null if it could not be started. */
  run: number | null;
}

/**
 * Live subscribers through nginx: `syncProgress` over SSE, each subscribing again whenever its
 * stream ends (as EventSource does), noting every finished run it hears of.
 */
const SUBSCRIBERS = 20;
let reconnects = 0;
let listening = true;
// Ends every stream at the close: nginx, stopped gracefully, waits for its open connections.
const hangUp = new AbortController();
const heard = Array.from({ length: SUBSCRIBERS }, () => new Set<number>());
const subscribers = heard.map(async (runs) => {
  while (listening) {
    try {
      const res = await fetch(`${nginx.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': ADMIN },
        body: JSON.stringify({ query: 'subscription { syncProgress { state lastRun { id } } }' }),
        signal: hangUp.signal,
      });
      const reader = res.body!.getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done || !listening) break;
        buffer += new TextDecoder().decode(value);
        const parts = buffer.split('\n\n');
        buffer = parts.pop()!;
        for (const part of parts) {
          const data = part.split('\n').find((l) => l.startsWith('data:'));
          const id = data ? JSON.parse(data.slice(5)).data?.syncProgress?.lastRun?.id : undefined;
          if (typeof id === 'number') runs.add(id);
        }
      }
      if (!listening) return;
    } catch {
      // The replica went away mid-stream: subscribe again.
    }
    reconnects++;
    await sleep(200);
  }
});

/** Asks for a sync run through nginx and waits until it has finished: its id, or null. */
async function syncRun(): Promise<number | null> {
  const ask = () =>
    fetch(`${nginx.url}/api/sync/run`, { method: 'POST', headers: { 'x-api-key': ADMIN } }).then(
      (r) => r.json(),
      () => null,
    );
  const status = () =>
    fetch(`${nginx.url}/api/sync/status`, { headers: { 'x-api-key': ADMIN } }).then(
      (r) => r.json(),
      () => null,
    );
  const before = (await status())?.lastRun?.id ?? 0;
  for (let i = 0; i < 20 && !(await ask())?.state; i++) await sleep(250);
  for (let i = 0; i < 200; i++) {
    const s = await status();
    if (s?.state === 'IDLE' && (s.lastRun?.id ?? 0) > before) return s.lastRun.id;
    await sleep(100);
  }
  return null;
}

const phases: Phase[] = [];
async function phase(name: string, fault: () => Promise<void>): Promise<autocannon.Result> {
  const logged = nginx.errors().length;
  const reconnectsBefore = reconnects;
  const load = autocannon({ url: nginx.url, connections, duration: phaseSeconds, headers: { 'x-api-key': KEY }, requests: mixedRequests() });
  await sleep(3000);
  await fault();
  const run = await syncRun();
  const result = await load;
  // Requests a replica failed mid-way (nginx's error log): a GET is retried on the next replica,
  // a POST is not (nginx does not resend a non-idempotent request once sent).
  const cut = nginx
    .errors()
    .slice(logged)
    .split('\n')
    .filter((l) => /prematurely closed|reset by peer/.test(l));
  const cutPosts = cut.filter((l) => l.includes('request: "POST')).length;
  phases.push({ name, result, cut: `${cut.length - cutPosts} GET, ${cutPosts} POST`, reconnects: reconnects - reconnectsBefore, run });
  console.error(`${name}: ${result.requests.total} requests, ${errorsOf(result)} failed (${failuresOf(result)})`);
  // FAULTS_VERBOSE=1: nginx's lines about each cut request, to tell which failed and why.
  if (process.env.FAULTS_VERBOSE) console.error(cut.join('\n'));
  return result;
}

const warm = autocannon({ url: nginx.url, connections, duration: 3, headers: { 'x-api-key': KEY }, requests: mixedRequests() });
await warm;
const commandsBefore = await commandsNow();
const baseline = await phase('none (baseline)', async () => {});
const commandsAfter = await commandsNow();

await phase('`kill -9` one replica (started again 4 s later)', async () => {
  replicas[1]!.child.kill('SIGKILL');
  await sleep(4000);
  replicas[1] = await start(1);
});
await phase('SIGTERM rolling restart of all three', async () => {
  for (let i = 0; i < REPLICAS; i++) {
    await replicas[i]!.stop();
    replicas[i] = await start(i);
    // nginx tries a replica it left out again after fail_timeout (1 s).
    await sleep(1500);
  }
});
await phase('`kill -9` the Redis primary (Sentinel fails over)', async () => {
  sentinels.kill(await sentinels.primaryPort());
});
// Both nodes of a fresh pair frozen: the killed primary is gone, so this phase freezes what is left.
await phase('Redis gone for 10 s (frozen), then back', async () => {
  sentinels.freezeAll();
  await sleep(10_000);
  sentinels.thawAll();
});

listening = false;
hangUp.abort();
await Promise.all(subscribers);
// The count in Redis against the requests answered (warm-up included; each answered request counts once).
const answered = [await warm, ...phases.map((p) => p.result)].reduce((n, res) => n + res['2xx'], 0);
const r = await primaryLink();
const id = await r.hget(`szg:key:${hashApiKey(KEY)}`, 'id');
const months = await r.keys(`szg:usage:${id}:*`);
const counted = months.length ? Number(await r.get(months[0]!)) : 0;
r.disconnect();

await nginx.stop();
await Promise.all(replicas.map((s) => s.stop()));
await sentinels.stop();
rmSync(dir, { recursive: true, force: true });

console.log(
  `\n| fault (${phaseSeconds} s phase, fault at 3 s, ${connections} connections through nginx, 3 replicas, Redis + Sentinel) | requests | failed | what failed | cut mid-answer (nginx) | p99 ms | max ms | subscriber reconnects | subscribers that heard the run |\n|---|---:|---:|---|---|---:|---:|---:|---:|`,
);
for (const p of phases)
  console.log(
    `| ${p.name} | ${p.result.requests.total} | ${errorsOf(p.result)} | ${failuresOf(p.result)} | ${p.cut} | ${p.result.latency.p99} | ${p.result.latency.max} | ${p.reconnects} | ${p.run === null ? 'no run' : `${heard.filter((runs) => runs.has(p.run!)).length} of ${SUBSCRIBERS}`} |`,
  );
console.log(`\nQuota: ${answered} requests answered, ${counted} counted in Redis (${counted - answered >= 0 ? '+' : ''}${counted - answered}).`);
console.log(`Redis commands per request (baseline phase): ${((commandsAfter - commandsBefore) / baseline.requests.total).toFixed(2)}.`);
process.exit(0);
