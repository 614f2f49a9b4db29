import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import path from 'node:path';
import { testDir } from './server.js';

export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';
export const haveRedis = existsSync(REDIS_SERVER);

/** A spawn that failed (no redis-server there) fails the hook at once, saying what to install. */
const notStarted = (error: Error) =>
  new Error(`could not run ${REDIS_SERVER} (${error.message}): install Debian's redis-server (.ci/run does) or set REDIS_SERVER_PATH`);

export interface TestRedis {
  url: string;
  /** redis-cli's arguments to reach it. */
  cliArgs: string[];
  /** Stops the server (its data is kept in its directory, append-only file). */
  stop(): Promise<void>;
  /** Starts it again on the same socket and data. */
  start(): Promise<void>;
  /** Deletes its data, while stopped: it starts again empty, as a Redis without persistence does. */
  wipe(): void;
  /** Freezes it (SIGSTOP): connections stay open and nothing is answered, as when a host hangs. */
  pause(): void;
  /** Lets a frozen server go on (SIGCONT). */
  resume(): void;
}

/**
 * A real redis-server on a socket in its own directory (no TCP port: a port picked now could be
 * taken by another process before a restart binds it again), with its data there too.
 */
export async function startRedis(): Promise<TestRedis> {
  const dir = testDir('gateway-redis-');
  const socket = path.join(dir, 'redis.sock');
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(REDIS_SERVER, ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--dir', dir, '--appendonly', 'yes', '--save', ''], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
      child!.stdout!.on('data', (d: Buffer) => {
        out += d;
        if (/ready to accept connections/i.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child!.once('error', (error) => reject(notStarted(error)));
      child!.once('exit', () => reject(new Error(`redis-server exited: ${out}`)));
    });
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    await new Promise((resolve) => {
      c.once('exit', resolve);
      c.kill('SIGTERM');
    });
  };
  await start();
  return {
    url: `unix://${socket}`,
    cliArgs: ['-s', socket],
    stop,
    start,
    wipe: () => rmSync(path.join(dir, 'appendonlydir'), { recursive: true, force: true }),
    pause: () => (child as ChildProcess | null)?.kill('SIGSTOP'),
    resume: () => (child as ChildProcess | null)?.kill('SIGCONT'),
  };
}

/** A port free now (the OS's pick), for servers that must be reached over TCP (Sentinel announces host:port). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** One redis-server process (a node or a Sentinel), ready when its log says so. */
async function startProcess(args: string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server ${args.join(' ')} did not start: ${out}`)), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', (error) => reject(notStarted(error)));
    child.once('exit', () => reject(new Error(`redis-server exited: ${out}`)));
  });
  return child;
}

export interface TestSentinels {
  /** REDIS_SENTINELS and REDIS_SENTINEL_NAME for a replica or the keys command. */
  env: { REDIS_SENTINELS: string; REDIS_SENTINEL_NAME: string };
  /** The port of the node the Sentinels say is the primary now. */
  primaryPort(): Promise<number>;
  /** Kills a node (SIGKILL) by its port. */
  kill(port: number): void;
  /** Fails over by hand (SENTINEL FAILOVER): the old primary lives on, as a replica of the new one. */
  failover(): Promise<void>;
  /** Freezes every node left (SIGSTOP; the Sentinels go on), and lets them go on again (SIGCONT). */
  freezeAll(): void;
  thawAll(): void;
  ports: { nodes: number[]; sentinels: number[] };
  stop(): Promise<void>;
}

export const SENTINEL_NAME = 'suite-primary';

/**
 * Redis with Sentinel as operators run it, on this machine: a primary, a replica of it and three
 * Sentinels (quorum 2), each a real redis-server on TCP (Sentinel announces host:port), in a
 * directory of its own. A primary that stops answering for a second is failed over.
 */
export async function startSentinels(): Promise<TestSentinels> {
  const dir = testDir('gateway-sentinel-');
  const children = new Map<number, ChildProcess>();
  const nodePorts = [await freePort(), await freePort()];
  const [primary, replica] = nodePorts as [number, number];
  const node = (port: number, extra: string[]) =>
    startProcess(
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--dbfilename',
        `dump-${port}.rdb`,
        '--save',
        '',
        '--appendonly',
        'no',
        '--repl-diskless-sync-delay',
        '0',
        ...extra,
      ],
      /ready to accept connections/i,
    );
  children.set(primary, await node(primary, []));
  children.set(replica, await node(replica, ['--replicaof', '127.0.0.1', String(primary)]));
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  for (const port of sentinelPorts) {
    const conf = path.join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primary} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
        `sentinel failover-timeout ${SENTINEL_NAME} 5000`,
        `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
        '',
      ].join('\n'),
    );
    children.set(port, await startProcess([conf, '--sentinel'], /\+monitor master/));
  }
  const ask = new Redis({ host: '127.0.0.1', port: sentinelPorts[0]!, lazyConnect: false });
  ask.on('error', () => {});
  const replicaLink = new Redis({ host: '127.0.0.1', port: replica, lazyConnect: false });
  replicaLink.on('error', () => {});
  // Failing over without loss needs the replica in sync (its first full copy done), and the
  // Sentinels knowing the replica and each other.
  for (let i = 0; ; i++) {
    const synced = /master_link_status:up/.test(await replicaLink.info('replication'));
    const replicas = (await ask.call('SENTINEL', 'REPLICAS', SENTINEL_NAME)) as unknown[];
    const sentinels = (await ask.call('SENTINEL', 'SENTINELS', SENTINEL_NAME)) as unknown[];
    if (synced && replicas.length === 1 && sentinels.length === 2) break;
    if (i > 200) throw new Error('the replica did not sync, or the Sentinels did not find it and each other, in 20 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  replicaLink.disconnect();
  return {
    env: { REDIS_SENTINELS: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','), REDIS_SENTINEL_NAME: SENTINEL_NAME },
    primaryPort: async () => Number(((await ask.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME)) as string[])[1]),
    kill: (port) => children.get(port)?.kill('SIGKILL'),
    freezeAll: () => {
      for (const port of nodePorts) children.get(port)?.kill('SIGSTOP');
    },
    thawAll: () => {
      for (const port of nodePorts) children.get(port)?.kill('SIGCONT');
    },
    failover: async () => {
      await ask.call('SENTINEL', 'FAILOVER', SENTINEL_NAME);
    },
    ports: { nodes: nodePorts, sentinels: sentinelPorts },
    stop: async () => {
      ask.disconnect();
      await Promise.all(
        [...children.values()].map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}
