import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest';
import { hashApiKey } from '../../src/auth/api-key.js';
import { startApp, type RunningApp } from '../../src/app/start.js';
import { loadConfig } from '../../src/lib/config.js';
import { movableClock } from '../helpers/clock.js';
import { within } from '../helpers/wait.js';
import { capturedLog, TEST_KEY, privateDatabase, suiteConfig, type TestServerOptions } from '../helpers/server.js';

/** The suite's config (suiteConfig), over the environment given (its variables parsed as a start parses them). */
export type SourceAppOptions = Pick<TestServerOptions, 'config'> & {
  env?: NodeJS.ProcessEnv;
  /** What the server logs for the test to read (`info` adds a line per request, with its cost). */
  logLevel?: 'info' | 'warn';
};

/**
 * The whole server from src/ (app/start.ts: the dispatcher, the pipeline, every transport) on an
 * ephemeral port over a private copy of the run's database, on a clock the test moves: what the
 * transports' mutants reach, which the bundle the HTTP-level tests start never does.
 */
export async function startSourceApp(prefix: string, options: SourceAppOptions = {}) {
  const file = privateDatabase(prefix);
  const clock = movableClock(inject('clock').start);
  const log = capturedLog(options.logLevel ?? 'warn');
  let app: RunningApp;
  try {
    app = await startApp({ config: suiteConfig(loadConfig(options.env ?? {}), file, options), now: clock.now, logger: log.logger });
    await app.ready();
  } catch (err) {
    rmSync(path.dirname(file), { recursive: true, force: true });
    throw err;
  }
  return {
    ...app,
    clock,
    log: log.lines,
    /** Closes the server and removes its database copy (Stryker runs a file once per mutant: 15 MB each time). */
    close: async () => {
      await app.close();
      rmSync(path.dirname(file), { recursive: true, force: true });
    },
  };
}
export type SourceApp = Awaited<ReturnType<typeof startSourceApp>>;

/**
 * Loads MCP (the server loads it with the first request to /mcp: its modules, their tables, the
 * tools derived from the operation files) by a request it refuses (405). Called in a beforeAll, that
 * load is what Stryker counts as static, as the rest of a server's start; left to the first test
 * that happens to reach /mcp, its table mutants were counted against that test alone, survivors no
 * test judges. It never fails nor waits long: a mutant that breaks /mcp must fail the tests, not this
 * hook (a failed beforeAll skips the file's tests, which Stryker's vitest runner counts as survived).
 */
export async function loadMcp(app: Pick<SourceApp, 'url'>): Promise<void> {
  try {
    await (await fetch(`${app.url}/mcp`, { method: 'PUT', headers: { 'x-api-key': TEST_KEY }, signal: AbortSignal.timeout(3000) })).arrayBuffer();
  } catch {
    // The tests find what failed.
  }
}

/** How long a file's server may take to start: inside the hook's own time-out (vitest's 10 s). */
const START_MS = 9_000;

/**
 * startSourceApp for a file's or a describe's beforeAll. A start that fails or never ends (a mutant
 * of what every start runs) gives a stand-in whose every use throws why, so each test fails at once
 * rather than the hook: a failed beforeAll skips the file's tests, which Stryker's vitest runner
 * counts as a surviving mutant, and with no test failed the run went on to every other file's hook.
 */
export async function startForTests(prefix: string, options: SourceAppOptions = {}): Promise<SourceApp> {
  const starting = startSourceApp(prefix, options);
  try {
    return await within(starting, 'the server to start', START_MS);
  } catch (failure) {
    // One that starts after all is closed, its copy removed.
    void starting.then((started) => started.close()).catch(() => undefined);
    return new Proxy({} as SourceApp, {
      get: (_, name) => {
        // Not a promise; closing it is nothing.
        if (name === 'then') return undefined;
        if (name === 'close') return async () => undefined;
        throw failure;
      },
    });
  }
}

/** One such server for a file's tests: started before them, closed and its copy removed after. */
export function sharedSourceApp(prefix: string, options: SourceAppOptions = {}): () => SourceApp {
  let app: SourceApp | undefined;
  beforeAll(async () => {
    app = await startForTests(prefix, options);
  });
  afterAll(() => app?.close());
  return () => app!;
}

/** After each test of the file, whatever it did, the server logged no error (an answer sent and then a throw is a failure too). */
export function noErrorLogged(app: () => SourceApp): void {
  afterEach(() =>
    expect(
      app()
        .log()
        .filter((l) => l.level >= 50),
    ).toEqual([]),
  );
}

/** The live feed's subscribers now, as /metrics says (the suite's key has the admin scope). */
export async function liveSubscribers(a: SourceApp): Promise<number> {
  const text = await (await fetch(`${a.url}/metrics`, { headers: { 'x-api-key': TEST_KEY } })).text();
  const m = /^live_subscribers (\d+)$/m.exec(text);
  if (!m) throw new Error(`no live_subscribers in /metrics: ${text.slice(0, 200)}`);
  return Number(m[1]);
}

/** Asks until the live feed has `n` subscribers (each try a request: no timer), or fails saying how many it has. */
export async function subscribersBecome(a: SourceApp, n: number): Promise<void> {
  let now = await liveSubscribers(a);
  for (let tries = 0; now !== n && tries < 500; tries++) now = await liveSubscribers(a);
  if (now !== n) throw new Error(`the live feed has ${now} subscribers, not ${n}`);
}

/** A key's own limits (keyOfItsOwn); unset, a rate no test reaches and the server's streams per key. */
export interface KeyLimits {
  ratePerSecond?: number;
  streams?: number;
}

let keysMade = 0;
/**
 * A key of the test's own in the server's database (limits of its own), as `npm run keys -- create`
 * adds one; `revoke` revokes it from another connection, as the keys command does, so the server
 * sees the database move.
 */
export function keyOfItsOwn(app: SourceApp, prefix: string, limits: KeyLimits = {}): { key: string; revoke(): void } {
  const n = ++keysMade;
  const key = `szg_${prefix.replace(/\W/g, '_')}_test_key_${n}_${'k'.repeat(24)}`;
  const name = `${prefix}-${n}`;
  app.repos.keys.create({
    name,
    plan: 'test',
    keyHash: hashApiKey(key),
    createdAt: app.clock.now().toISOString(),
    monthlyQuota: 1_000_000,
    ratePerSecond: limits.ratePerSecond ?? 1_000,
    scopes: '',
    streams: limits.streams ?? null,
  });
  return {
    key,
    revoke: () => {
      const other = new Database(app.db.name);
      try {
        other.prepare("UPDATE api_keys SET revoked_at = ?, revoked_by = 'operator' WHERE name = ?").run(app.clock.now().toISOString(), name);
      } finally {
        other.close();
      }
    },
  };
}
