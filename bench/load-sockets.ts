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
import { fork, spawnSync } from 'node:child_process';
import { buildOnce, cpuSeconds, memoryMiB, resetPeakMemory, startCommand, startServer } from './lib.js';

const SECONDS = Number(process.env.SOCKETS_SECONDS ?? 15);
const FLOOD = Number(process.env.SOCKETS_FLOOD ?? 4200);
const CLIENTS = Number(process.env.SOCKETS_CLIENTS ?? 4);
const KEY = 'szg_sockets_load_key_0123456789';

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

/** An attack in a process of its own: its thousands of sockets never hold up the client's event loop. */
function inWorker(attack: Record<string, unknown>): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./socket-attacks.ts', import.meta.url), [JSON.stringify(attack)], { execArgv: ['--import', 'tsx'] });
    child.once('message', (outcomes) => resolve(outcomes as Record<string, number>));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`the attack's process exited with ${code}`)));
  });
}

await buildOnce();
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-sockets-'));
// The attacker with a key has an ordinary free-plan one (25 requests a second, 4 streams).
const ATTACKER_KEY = spawnSync(
  process.execPath,
  ['--import', 'tsx', 'src/cli/keys.ts', 'create', '--name', 'attacker', '--quota', '1000000000', '--rate', '25'],
  {
    env: { ...process.env, DB_PATH: path.join(dir, 'sockets.sqlite') },
    encoding: 'utf8',
  },
).stdout.match(/szg_[\w-]+/)?.[0];
if (!ATTACKER_KEY) throw new Error("could not create the attacker's key");
const server = await startServer(
  startCommand().args,
  {
    ...startCommand().env,
    DB_PATH: path.join(dir, 'sockets.sqlite'),
    LOG_LEVEL: 'error',
    API_KEYS: KEY,
    API_KEYS_QUOTA: '1000000000',
    API_KEYS_RATE: '1000000',
    SYNC_INTERVAL_MINUTES: '0',
  },
  { path: '/readyz' },
);
const rows: {
  attack: string;
  client: Awaited<ReturnType<ReturnType<typeof steadyClient>['stop']>>;
  attackers: Record<string, number>;
  rss: string;
  cpu: number;
}[] = [];
try {
  const attacks: [string, (until: number) => Promise<Record<string, number>>][] = [
    [`${FLOOD} keyless upgrades held and reopened`, (until) => inWorker({ kind: 'flood', url: server.url, until, count: FLOOD })],
    ['8 keyless sockets pinging 90 KB, never reading', (until) => inWorker({ kind: 'pings', url: server.url, until, key: null })],
    ['8 keyed sockets pinging 90 KB, never reading', (until) => inWorker({ kind: 'pings', url: server.url, until, key: ATTACKER_KEY })],
  ];
  for (const [attack, run] of attacks) {
    await new Promise((r) => setTimeout(r, 2000));
    const before = memoryMiB(server.pid).rss;
    resetPeakMemory(server.pid);
    const cpu0 = cpuSeconds(server.pid);
    const t0 = performance.now();
    const client = steadyClient(server.url);
    const attackers = await run(Date.now() + SECONDS * 1000);
    const result = await client.stop();
    const cpu = (cpuSeconds(server.pid) - cpu0) / ((performance.now() - t0) / 1000);
    const after = memoryMiB(server.pid);
    rows.push({ attack, client: result, attackers, rss: `${before} → peak ${after.peak} (+${after.peak - before}) → ${after.rss} MiB`, cpu });
    console.error(`${attack}: done`);
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`\nLong-lived channels under abuse, ${SECONDS} s each, beside ${CLIENTS} client loops of GET /api/zip/05401\n`);
for (const { attack, client, attackers, rss, cpu } of rows) {
  const total = client.answered + client.failed;
  console.log(`## ${attack}`);
  console.log(
    `  the client: ${client.answered} of ${total} answered (${((100 * client.answered) / Math.max(1, total)).toFixed(2)} %; target 100), p50 ${client.p50.toFixed(1)} ms, p99 ${client.p99.toFixed(1)} ms (target ≤ 1000), max ${client.max.toFixed(1)} ms${client.failed ? `; failures ${JSON.stringify(client.failures)}` : ''}`,
  );
  console.log(`  the attackers got: ${JSON.stringify(attackers)}`);
  console.log(`  server CPU: ${(cpu * 100).toFixed(0)} % of a core (the attackers and the client share the same two cores)`);
  console.log(`  server RSS: ${rss} (target for the pings: growth ≤ 64 MiB)`);
}
