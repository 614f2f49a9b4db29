/**
 * npm run load:sockets — the long-lived channels under abuse, against a real server process started
 * the way `npm start` starts it, with its default bounds. Two attacks, each beside a client that
 * sends one GET at a time (SOCKETS_CLIENTS loops, default 4) the whole time:
 * 1. SOCKETS_FLOOD (default 4,200) WebSocket upgrades to /graphql with no key and no
 *    connection_init, each held until the server closes or refuses it and opened again at once, for
 *    SOCKETS_SECONDS (default 15);
 * 2. eight WebSockets that send graphql-ws pings with a 90 KB payload as fast as they may and never
 *    read, for SOCKETS_SECONDS: once without a key (as an attacker has none), once with a key
 *    (acknowledged sockets, the worst case).
 * Reports, per attack: the client's requests answered (target: all) with their p50 / p99 / max
 * (target p99 ≤ 1 s), what the attackers got (upgrades accepted, refused by status, closes by
 * code), and the server's RSS growth (target ≤ 64 MiB for the pings) and its peak.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { buildOnce, memoryMiB, resetPeakMemory, startCommand, startServer } from './lib.js';

const SECONDS = Number(process.env.SOCKETS_SECONDS ?? 15);
const FLOOD = Number(process.env.SOCKETS_FLOOD ?? 4200);
const CLIENTS = Number(process.env.SOCKETS_CLIENTS ?? 4);
const KEY = 'szg_sockets_load_key_0123456789';
const ATTACKER_KEY = 'szg_sockets_attacker_key_0123456789';

/** The ordinary client: one GET at a time per loop; every outcome counted. */
function steadyClient(url: string) {
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  let stop = false;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const req = http.get(`${url}/api/zip/05401`, { agent, headers: { 'x-api-key': KEY }, timeout: 30_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) latencies.push(performance.now() - t0);
          else failures[res.statusCode!] = (failures[res.statusCode!] ?? 0) + 1;
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (err: NodeJS.ErrnoException) => {
        failures[err.code ?? err.message] = (failures[err.code ?? err.message] ?? 0) + 1;
        resolve();
      });
    });
  const loops = Array.from({ length: CLIENTS }, async () => {
    while (!stop) await one();
  });
  return {
    async stop() {
      stop = true;
      await Promise.all(loops);
      agent.destroy();
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
      const failed = Object.values(failures).reduce((a, b) => a + b, 0);
      return { answered: sorted.length, failed, failures, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN };
    },
  };
}

const tally = (counts: Record<string, number>, key: string | number) => void (counts[key] = (counts[key] ?? 0) + 1);

/** FLOOD attackers, each an upgrade with no key held until the server ends it, then another. */
async function keylessFlood(url: string, until: number) {
  const outcomes: Record<string, number> = {};
  const attacker = async () => {
    while (Date.now() < until) {
      await new Promise<void>((resolve) => {
        const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
        socket.on('open', () => tally(outcomes, 'upgraded'));
        socket.on('unexpected-response', (_req, res) => {
          tally(outcomes, `refused ${res.statusCode}`);
          res.resume();
          socket.terminate();
          resolve();
        });
        socket.on('close', (code) => {
          if (code !== 1006 || socket.protocol) tally(outcomes, `closed ${code}`);
          resolve();
        });
        socket.on('error', (err: NodeJS.ErrnoException) => {
          tally(outcomes, `error ${err.code ?? 'other'}`);
          resolve();
        });
        // An attacker does not wait past the run.
        setTimeout(() => socket.terminate(), Math.max(0, until - Date.now())).unref();
      });
    }
  };
  await Promise.all(Array.from({ length: FLOOD }, attacker));
  return outcomes;
}

/** Eight sockets that ping with 90 KB payloads as fast as they may and never read. */
async function pingFlood(url: string, until: number, key: string | null) {
  const outcomes: Record<string, number> = {};
  const payload = JSON.stringify({ type: 'ping', payload: { junk: 'x'.repeat(90_000) } });
  const flooder = async () => {
    while (Date.now() < until) {
      await new Promise<void>((resolve) => {
        const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
        let sending = true;
        socket.on('open', () => {
          // Without a key, an attacker sends no connection_init (it would be closed 4403 at once): pings only.
          if (key) socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': key } }));
          (socket as unknown as { _socket: { pause(): void } })._socket.pause();
          const pump = () => {
            // As fast as the socket takes them, never reading what comes back.
            while (sending && socket.readyState === WebSocket.OPEN && socket.bufferedAmount < 1024 * 1024) socket.send(payload);
            if (sending && socket.readyState === WebSocket.OPEN) setTimeout(pump, 5);
          };
          pump();
        });
        const done = (what: string) => {
          sending = false;
          tally(outcomes, what);
          resolve();
        };
        socket.on('close', (code) => done(`closed ${code}`));
        socket.on('error', (err: NodeJS.ErrnoException) => done(`error ${err.code ?? 'other'}`));
        setTimeout(() => socket.terminate(), Math.max(0, until - Date.now())).unref();
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, flooder));
  return outcomes;
}

await buildOnce();
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-sockets-'));
const server = await startServer(
  startCommand().args,
  {
    ...startCommand().env,
    DB_PATH: path.join(dir, 'sockets.sqlite'),
    LOG_LEVEL: 'error',
    API_KEYS: `${KEY},${ATTACKER_KEY}`,
    API_KEYS_QUOTA: '1000000000',
    API_KEYS_RATE: '1000000',
    SYNC_INTERVAL_MINUTES: '0',
  },
  { path: '/readyz' },
);
const rows: { attack: string; client: Awaited<ReturnType<ReturnType<typeof steadyClient>['stop']>>; attackers: Record<string, number>; rss: string }[] = [];
try {
  const attacks: [string, (until: number) => Promise<Record<string, number>>][] = [
    [`${FLOOD} keyless upgrades held and reopened`, (until) => keylessFlood(server.url, until)],
    ['8 keyless sockets pinging 90 KB, never reading', (until) => pingFlood(server.url, until, null)],
    ['8 keyed sockets pinging 90 KB, never reading', (until) => pingFlood(server.url, until, ATTACKER_KEY)],
  ];
  for (const [attack, run] of attacks) {
    await new Promise((r) => setTimeout(r, 2000));
    const before = memoryMiB(server.pid).rss;
    resetPeakMemory(server.pid);
    const client = steadyClient(server.url);
    const attackers = await run(Date.now() + SECONDS * 1000);
    const result = await client.stop();
    const after = memoryMiB(server.pid);
    rows.push({ attack, client: result, attackers, rss: `${before} → peak ${after.peak} (+${after.peak - before}) → ${after.rss} MiB` });
    console.error(`${attack}: done`);
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`\nLong-lived channels under abuse, ${SECONDS} s each, beside ${CLIENTS} client loops of GET /api/zip/05401\n`);
for (const { attack, client, attackers, rss } of rows) {
  const total = client.answered + client.failed;
  console.log(`## ${attack}`);
  console.log(
    `  the client: ${client.answered} of ${total} answered (${((100 * client.answered) / Math.max(1, total)).toFixed(2)} %; target 100), p50 ${client.p50.toFixed(1)} ms, p99 ${client.p99.toFixed(1)} ms (target ≤ 1000), max ${client.max.toFixed(1)} ms${client.failed ? `; failures ${JSON.stringify(client.failures)}` : ''}`,
  );
  console.log(`  the attackers got: ${JSON.stringify(attackers)}`);
  console.log(`  server RSS: ${rss} (target for the pings: growth ≤ 64 MiB)`);
}
