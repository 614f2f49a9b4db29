import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { testDir } from './server.js';

export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';
export const haveRedis = existsSync(REDIS_SERVER);

export interface TestRedis {
  url: string;
  /** redis-cli's arguments to reach it. */
  cliArgs: string[];
  /** Stops the server (its data is kept in its directory, append-only file). */
  stop(): Promise<void>;
  /** Starts it again on the same socket and data. */
  start(): Promise<void>;
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
  return { url: `unix://${socket}`, cliArgs: ['-s', socket], stop, start };
}
