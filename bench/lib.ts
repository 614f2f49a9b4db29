/** What `npm run bench` and `npm run load` share: server processes, and what /proc says of them. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { buildDatabase } from '../src/data/db/build.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** CPU seconds a process has used (user + system), from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory now and at its peak (VmHWM), MiB, from /proc. */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(status.match(new RegExp(`${name}:\\s+(\\d+)`))?.[1] ?? 0);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** Starts a new peak: VmHWM reads the current RSS again from now on (Linux: clear_refs 5). */
export function resetPeakMemory(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/**
 * Builds dist/ now (as npm start would), so the servers a bench starts all run this build even if
 * src/ changes meanwhile (GATEWAY_NO_REBUILD tells scripts/start.mjs not to rebuild).
 */
export async function buildOnce(): Promise<void> {
  // @ts-expect-error: a plain ESM script without types.
  const { buildDist } = (await import('../scripts/build.mjs')) as { buildDist: () => Promise<void> };
  await buildDist();
  process.env.GATEWAY_NO_REBUILD = '1';
}

/**
 * How `npm start` runs the server, without npm in between: its environment assignments (as `sh`
 * reads `NAME=value node …`) and its node arguments, from package.json.
 */
export function startCommand(root = '.'): { env: Record<string, string>; args: string[] } {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  const [bin, ...args] = words;
  if (bin === 'node') return { env, args };
  return { env, args: ['--import', 'tsx', 'src/server.ts'] };
}

/** npm start's node arguments (see startCommand). */
export const serverCommand = (): string[] => startCommand().args;

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Milliseconds from spawn to the first answered probe. */
  coldStartMs: number;
  stop(): Promise<void>;
}

/**
 * Starts a server process and waits until `probe` answers 200. Cold start is spawn to that answer,
 * probed every 5 ms.
 */
export async function startServer(
  args: readonly string[],
  env: Record<string, string>,
  probe: { path: string; headers?: Record<string, string> },
  bin = process.execPath,
  fixedPort?: number,
): Promise<ServerProcess> {
  const port = fixedPort ?? (await freePort());
  const t0 = performance.now();
  // A group of its own, so that stopping `npm start` stops the node process under npm too.
  // BENCH_SERVER_LOGS=<dir>: each server's log in a file there (port.log), to see what it did.
  const logDir = process.env.BENCH_SERVER_LOGS;
  const child = spawn(bin, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', logDir ? openSync(path.join(logDir, `${port}.log`), 'a') : 'ignore', 'inherit'],
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`${args.join(' ')} exited before answering`);
    try {
      if ((await fetch(url + probe.path, { headers: probe.headers })).ok) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 60_000) throw new Error(`${args.join(' ')} did not start`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const coldStartMs = performance.now() - t0;
  return {
    url,
    pid: child.pid!,
    child,
    coldStartMs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        process.kill(-child.pid!, 'SIGTERM');
      }),
  };
}

/** A stable shuffle (the same order on every run). */
export function shuffled<T>(items: readonly T[], seed = 42): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The GraphQL ZIP lookup every bench sends: one ZIP's fields, the ZIP as a variable. */
export const GRAPHQL_ZIP_QUERY = 'query Zip($zip: String!) { zip(zip: $zip) { zip city stateCode stateName county countyFips lat lng lastUpdated } }';

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A database built afresh in a temp directory of its own, and its ZIPs in a stable shuffled order. */
export function benchDatabase(name: string): { dir: string; dbPath: string; zips: string[] } {
  const dir = mkdtempSync(path.join(tmpdir(), `gateway-${name}-`));
  const dbPath = path.join(dir, `${name}.sqlite`);
  buildDatabase(dbPath);
  const db = new Database(dbPath, { readonly: true });
  const zips = shuffled(db.prepare('SELECT zip FROM zips').pluck().all() as string[]);
  db.close();
  return { dir, dbPath, zips };
}
