import { copyFileSync, mkdtempSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, inject } from 'vitest';
import { print } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { RunningApp } from '../../src/app/start.js';
import type { Config } from '../../src/lib/config.js';
import { bundle } from './bundle.js';
import { runNow } from './clock.js';

/** The key test servers accept (added through API_KEYS), with limits no suite reaches. */
export const TEST_KEY = 'szg_test_key_for_the_suite';

export interface TestServerOptions {
  countStatements?: boolean;
  now?: () => Date;
  dbPath?: string;
  /** Serve from a private copy of the run's database (for servers that write, e.g. weather). */
  privateDb?: boolean;
  /** Overrides of the config (auth, keys, limits); the stream and pending-socket limits not named keep their defaults. */
  config?: Partial<Omit<Config, 'streams' | 'pendingSockets'>> & { streams?: Partial<Config['streams']>; pendingSockets?: Partial<Config['pendingSockets']> };
  /** Where the server logs (capturedLog()); by default nowhere. */
  logger?: Logger;
}

/** A logger whose lines a test reads back, parsed. */
export function capturedLog(level = 'debug'): { logger: Logger; lines: () => { level: number; msg: string; [k: string]: unknown }[] } {
  const raw: string[] = [];
  const logger = pino(
    { level },
    new Writable({
      write: (chunk, _encoding, done) => {
        raw.push(String(chunk));
        done();
      },
    }),
  );
  return { logger, lines: () => raw.map((line) => JSON.parse(line)) };
}

/**
 * A consistent copy of a database another server may be writing: through SQLite (VACUUM INTO),
 * never by copying the file, which can catch it mid-write or without its WAL.
 */
export function copyDatabase(source: string, target: string): string {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
  return target;
}

/**
 * A directory of its own for a test's files, inside the run's directory (removed when the run
 * ends), or the system's temporary directory when there is no run's (the mutation runs, benches).
 */
export function testDir(prefix: string): string {
  let runDir: string | undefined;
  try {
    runDir = inject('runDir');
  } catch {
    // Outside a test run (npm run load:replicas, bench:live): the system's temporary directory.
  }
  return mkdtempSync(path.join(runDir ?? tmpdir(), prefix));
}

/**
 * A private copy of the run's database, as built with today's weather window (see
 * test/global-setup.ts), in a directory of its own: a byte copy of the template, which no server
 * ever opens (copying a database a server has open could catch it mid-write; copying one no
 * process writes cannot). `weather: false` leaves out the window, as on a first start; `resorts`
 * keeps only those resorts (and what hangs off them), for tests whose sync runs need no more.
 */
export function privateDatabase(prefix = 'gateway-db-', { weather = true, resorts }: { weather?: boolean; resorts?: readonly string[] } = {}): string {
  const file = path.join(testDir(prefix), 'gateway.sqlite');
  copyFileSync(inject('templatePath'), file);
  const db = new Database(file);
  try {
    if (!weather) db.exec('DELETE FROM daily_weather');
    if (resorts) keepOnly(db, resorts);
  } finally {
    db.close();
  }
  return file;
}

/**
 * The resorts a sync test's database keeps (privateDatabase's `resorts`): a sync of the whole
 * catalogue parses three points of hourly data for each of its 241 resorts, seconds of CPU that
 * made those tests time out on a busy machine. These cover what the tests look at: both
 * hemispheres, resorts with Liftie ids (steamboat, alta, cerro-catedral) and without, seven zones.
 */
export const SYNC_RESORTS = ['alta', 'are', 'cerro-catedral', 'coronet-peak', 'portillo', 'steamboat', 'taos', 'thredbo', 'vail', 'zermatt'] as const;

function keepOnly(db: Database.Database, resorts: readonly string[]): void {
  const kept = JSON.stringify(resorts);
  const children = db
    .prepare<[], string>("SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'resort_id'")
    .pluck()
    .all();
  db.transaction(() => {
    for (const table of children) db.prepare(`DELETE FROM ${table} WHERE resort_id NOT IN (SELECT value FROM json_each(?))`).run(kept);
    db.prepare('DELETE FROM resorts WHERE id NOT IN (SELECT value FROM json_each(?))').run(kept);
  })();
  // Every id named is one the catalogue has: a misspelt one would quietly shrink the test.
  expect(db.prepare('SELECT count(*) FROM resorts').pluck().get()).toBe(resorts.length);
  db.exec('VACUUM');
}

const privateCopy = () => privateDatabase();

/**
 * The database a test file's servers share unless they ask for a private one: a copy of the
 * template per test file, so what one file's servers write (weather, keys, usage) never meets
 * another file's, whatever order the files run in.
 */
const fileDatabases = new Map<string, string>();
function fileDatabase(): string {
  const file = expect.getState().testPath ?? 'outside-a-test';
  let db = fileDatabases.get(file);
  if (!db) fileDatabases.set(file, (db = privateDatabase(`gateway-${path.basename(file, '.test.ts')}-`)));
  return db;
}

/** A fixed instant as the server's clock. */
export const clockAt = (iso: string) => () => new Date(iso);

/**
 * The suite's config over a loaded base (the bundle's loadConfig, or src's for the unit tests that
 * start the app from source): an ephemeral port, the suite's key, nothing scheduled or warmed.
 */
export function suiteConfig(base: Config, dbPath: string, options: Pick<TestServerOptions, 'config' | 'countStatements'> = {}): Config {
  return {
    ...base,
    port: 0,
    host: '127.0.0.1',
    dbPath,
    logLevel: 'silent',
    countStatements: options.countStatements ?? false,
    apiKeys: [TEST_KEY],
    // The suite's key may start sync runs; tests of the scope use a key of their own.
    apiAdminKeys: [TEST_KEY],
    apiKeysQuota: 100_000_000,
    apiKeysRate: 1_000_000,
    // Scheduled sync runs are off in tests unless a test turns them on.
    syncIntervalMinutes: 0,
    // No warm-up rounds: the operations compile on their first request instead (the suite
    // measures no first-request latency; a warm-up round cost every server ~0.5 s of CPU). The
    // tests of the warm-up itself ask for it.
    warmUpRounds: 0,
    // Nor the moment's pause before warming, which leaves room for requests a test does not send.
    warmUpDelayMs: 0,
    ...options.config,
    streams: { ...base.streams, ...options.config?.streams },
    pendingSockets: { ...base.pendingSockets, ...options.config?.pendingSockets },
  };
}

/** A real server, from the bundle npm start runs, on an ephemeral 127.0.0.1 port over a real SQLite file. */
export async function startTestServer(options: TestServerOptions = {}): Promise<RunningApp> {
  const { startApp, loadConfig } = await bundle();
  const app = await startApp({
    config: suiteConfig(loadConfig({}), options.dbPath ?? (options.privateDb ? privateCopy() : fileDatabase()), options),
    now: options.now ?? runNow,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  // Tests measure a settled server: today's weather window written (the server answers before, too).
  await app.ready();
  return app;
}

export interface HttpResult<T = any> {
  status: number;
  contentType: string;
  headers: Headers;
  body: T;
}

/** A real HTTP request with the suite's key unless the caller sets x-api-key (or null to omit it). */
export async function getJson<T = any>(app: RunningApp, path: string, init: RequestInit & { apiKey?: string | null } = {}): Promise<HttpResult<T>> {
  const { apiKey = TEST_KEY, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (apiKey !== null && !headers.has('x-api-key')) headers.set('x-api-key', apiKey);
  const res = await fetch(app.url + path, { ...rest, headers });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  return { status: res.status, contentType, headers: res.headers, body: text && contentType.includes('json') ? JSON.parse(text) : text };
}

export interface GqlResult<R> {
  data?: R | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[];
}

/** Runs a codegen-typed operation over real HTTP against /graphql. */
export async function gql<R, V>(app: RunningApp, doc: TypedDocumentNode<R, V>, variables?: V, path = '/graphql'): Promise<GqlResult<R>> {
  const res = await fetch(app.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', 'x-api-key': TEST_KEY },
    body: JSON.stringify({ query: print(doc), variables }),
  });
  return (await res.json()) as GqlResult<R>;
}

/** Asserts the RFC 9457 shape every 4xx/5xx body must have, and returns the body. */
export function expectProblem(r: HttpResult, status: number) {
  expect(r.status).toBe(status);
  expect(r.contentType).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status,
    detail: expect.any(String),
    instance: expect.stringMatching(/^\//),
    requestId: expect.stringMatching(/^[\w.:-]{1,64}$/),
    code: expect.stringMatching(/^[A-Z_]+$/),
  });
  // The same id as the header, so a client can quote either.
  expect(r.body.requestId).toBe(r.headers.get('x-request-id'));
  // A list of parameter errors, when there is one, names at least one parameter.
  if ('errors' in r.body) expect(r.body.errors.length).toBeGreaterThan(0);
  for (const e of r.body.errors ?? []) expect(e).toMatchObject({ name: expect.any(String), bound: expect.any(String), message: expect.any(String) });
  expect(JSON.stringify(r.body)).not.toMatch(/\bat .+\.(ts|js):\d+|SQLITE|node_modules/);
  return r.body as { code: string; detail: string; errors?: { name: string; value: unknown; bound: string; message: string }[] };
}
