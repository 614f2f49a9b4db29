import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import type { Config } from '../src/lib/config.js';
import { addDays, isoDate } from '../src/domain/dates.js';
import { RequestLoaders } from '../src/data/loaders.js';
import type { Services } from '../src/graphql/context.js';
import { simulatedProvider } from '../src/providers/simulated.js';
import { SnapshotStore } from '../src/data/snapshots/store.js';
import { DataVersion } from '../src/data/data-version.js';
import { WeatherWindow } from '../src/weather/window.js';
import { loadResortCatalogue } from '../src/data/db/sources/resort-source.js';
import { capturedLog, copyDatabase, expectProblem, getJson, startTestServer, TEST_KEY, privateDatabase, testDir, SYNC_RESORTS } from './helpers/server.js';
import { runNow } from './helpers/clock.js';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.js';
import { spawnServer } from './helpers/process.js';
import { readEvents, until } from './helpers/wait.js';

/** The servers' clock in these tests (a winter day), never the wall clock. */
const today = '2027-01-15';
const clock = () => new Date(`${today}T12:00:00Z`);
let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream({ today });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.mode = 'ok';
  fake.today = today;
  fake.requests.length = 0;
});

/** A private copy of the database as built, without weather: no weather, runs or live lifts yet; the resorts a sync needs. */
const freshDb = (): string => privateDatabase('gateway-sync-', { weather: false, resorts: SYNC_RESORTS });
/** The same with the whole catalogue, for tests about many resorts or a run long enough to interrupt. */
const wholeCatalogueDb = (): string => privateDatabase('gateway-sync-', { weather: false });
/** Resorts a run over freshDb() updates. */
const N = SYNC_RESORTS.length;

const meteo = (): Partial<Config> => ({
  provider: 'open-meteo',
  openMeteo: { forecast: `${fake.url}/v1/forecast`, archive: `${fake.url}/v1/archive` },
  // Time-outs no busy machine reaches (the fake answers from this process): failures here are the
  // fake's modes, never the machine's load.
  upstream: { timeoutMs: 60_000, retries: 0, concurrency: 8, backoffMs: 5, resetTimeoutMs: 60_000, maxBytes: 8_000_000 },
  syncIntervalMinutes: 0,
});

/** Every stored weather row, read through SQLite (WAL included). */
const weatherRows = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT * FROM daily_weather ORDER BY resort_id, date').all() as { resort_id: string; source: string }[];
  } finally {
    db.close();
  }
};

const status = (app: RunningApp) => getJson(app, '/api/sync/status').then((r) => r.body);
const post = (app: RunningApp, prefix = '') => getJson(app, `${prefix}/api/sync/run`, { method: 'POST' });

describe('sync runs against Open-Meteo and Liftie (local fakes)', () => {
  // Each test has a server of its own on a copy of one seeded database (the simulated window of
  // the day: the "last good data"), so no test depends on what another ran before it.
  let seeded: string;
  beforeAll(async () => {
    seeded = freshDb();
    const seed = await startTestServer({ dbPath: seeded, now: clock });
    await seed.close();
  });
  const servers: RunningApp[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((a) => a.close()));
  });
  /** A server on its own copy of the seeded database; a fixed time of day, so answers compare equal. */
  const syncingServer = async () => {
    const dbPath = copyDatabase(seeded, path.join(testDir('gateway-sync-'), 'gateway.sqlite'));
    const app = await startTestServer({ dbPath, now: clock, config: { ...meteo(), liftie: { enabled: true, url: `${fake.url}/liftie` } } });
    servers.push(app);
    return { app, dbPath };
  };
  const runToEnd = async (app: RunningApp) => {
    expect((await post(app)).body.state).toBe('RUNNING');
    return until(
      () => status(app),
      (x) => x.state === 'IDLE',
    );
  };

  it('reports IDLE with the provider before any run', async () => {
    const { app } = await syncingServer();
    const s = await status(app);
    expect(s).toMatchObject({ state: 'IDLE', provider: 'open-meteo', progress: { done: 0, total: 0 }, lastRun: null, nextScheduledRun: null });
  });

  it('two POSTs start one run; the second answers the running status', async () => {
    const { app } = await syncingServer();
    // The provider answers nothing until both POSTs are answered: the run is surely still running,
    // and once released it runs at full speed (a delay on every call made it slow on a busy machine).
    const release = fake.hold();
    const [a, b] = await Promise.all([post(app), post(app, '/v1')]);
    release();
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.state).toBe('RUNNING');
    expect(b.body.state).toBe('RUNNING');
    expect(a.body.progress.total).toBe(N);
    const done = await until(
      () => status(app),
      (s) => s.state === 'IDLE',
    );
    expect(done.lastRun).toMatchObject({ trigger: 'MANUAL', status: 'SUCCEEDED', resortsUpdated: N, resortsFailed: 0, error: null, provider: 'open-meteo' });
    const history = (await getJson(app, '/api/sync/history')).body;
    expect(history.runs).toHaveLength(1);
  });

  it('publishes what the provider said, live lifts included', async () => {
    const { app } = await syncingServer();
    expect((await getJson(app, '/api/resorts/vail')).body.source).toBe('simulated');
    expect((await runToEnd(app)).lastRun.status).toBe('SUCCEEDED');
    const vail = (await getJson(app, '/api/resorts/vail')).body;
    expect(vail.source).toBe('open-meteo');
    expect(vail.snow.depthBase).toBe(125);
    // Steamboat maps to a Liftie id (data/liftie-ids.json); Vail does not.
    const lifts = (await getJson(app, '/api/resorts/steamboat/lifts')).body;
    expect(lifts.lifts.map((l: { name: string; status: string; type: string }) => [l.name, l.status, l.type])).toEqual([
      ['Eagle Bahn Gondola', 'OPEN', 'GONDOLA'],
      ['Born Free Express', 'HOLD', 'CHAIRLIFT'],
      ['Riva Bahn Express', 'SCHEDULED', 'CHAIRLIFT'],
      ['Sourdough Express', 'CLOSED', 'CHAIRLIFT'],
    ]);
    expect(lifts.summary.byStatus).toEqual({ OPEN: 1, HOLD: 1, SCHEDULED: 1, CLOSED: 1 });
    expect(lifts.source).toBe('liftie');
    expect(lifts.lifts.length).toBe(4);
    expect(lifts.lifts.every((l: { seats: number | null }) => l.seats === null)).toBe(true);
    expect((await getJson(app, '/api/resorts/steamboat')).body.lifts.total).toBe(4);
    // A resort Liftie does not cover keeps its generated lifts.
    expect((await getJson(app, '/api/resorts/vail/lifts')).body.lifts.length).toBe(31);
  });

  it('a run where some resorts fail is PARTIAL: it publishes the rest and keeps the failed ones’ rows', async () => {
    const { app, dbPath } = await syncingServer();
    const southIds = new Set(
      loadResortCatalogue()
        .filter((r) => r.lat < 0 && (SYNC_RESORTS as readonly string[]).includes(r.id))
        .map((r) => r.id),
    );
    const southRows = () => weatherRows(dbPath).filter((r) => southIds.has(r.resort_id));
    const before = southRows();
    expect(new Set(before.map((r) => r.resort_id))).toEqual(southIds);
    expect(new Set(before.map((r) => r.source))).toEqual(new Set(['simulated']));
    fake.mode = 'fail-south';
    const s = await runToEnd(app);
    expect(s.lastRun.status).toBe('PARTIAL');
    const south = southIds.size;
    // Some failed and some did not: a PARTIAL run.
    expect(south).toBeGreaterThan(1);
    expect(south).toBeLessThan(N - 1);
    expect(s.lastRun.resortsFailed).toBe(south);
    expect(s.lastRun.resortsUpdated).toBe(N - south);
    // The failed resorts' rows are exactly as they were; every other resort has the provider's.
    expect(southRows()).toEqual(before);
    const north = weatherRows(dbPath).filter((r) => !southIds.has(r.resort_id));
    expect(new Set(north.map((r) => r.resort_id)).size).toBe(N - south);
    expect(north.filter((r) => r.source !== 'open-meteo').map((r) => `${r.resort_id} ${(r as { date?: string }).date} ${r.source}`)).toEqual([]);
    // Clients see the category and where to look, never the provider's own words.
    expect(s.lastRun.error).toMatch(/^provider lookup error: open-meteo: HTTP error \(details in the server log, sync run \d+\)$/);
    expect(JSON.stringify(await getJson(app, '/api/sync/history'))).not.toMatch(/southern hemisphere/);
  });

  it('a failed run leaves the last good data served', async () => {
    const { app } = await syncingServer();
    expect((await runToEnd(app)).lastRun.status).toBe('SUCCEEDED');
    const before = (await getJson(app, '/api/resorts/alta')).body;
    expect(before.source).toBe('open-meteo');
    fake.mode = 'server-error';
    const s = await runToEnd(app);
    expect(s.lastRun.status).toBe('FAILED');
    expect(s.lastRun.resortsUpdated).toBe(0);
    expect(s.lastRun.error).toBeTruthy();
    expect((await getJson(app, '/api/resorts/alta')).body).toEqual(before);
    const runs = (await getJson(app, '/api/sync/history?limit=2')).body.runs;
    expect(runs.map((r: { status: string }) => r.status)).toEqual(['FAILED', 'SUCCEEDED']);
    expect(runs[0].id).toBeGreaterThan(runs[1].id);
    // What an operator sees in /metrics: the runs by outcome and the provider calls by outcome
    // (one per resort and run: retries are off here). The breaker stayed closed: the minute's
    // attempts were half successes (bounded-work.test shows it open).
    const metrics = await (await fetch(`${app.url}/metrics`, { headers: { 'x-api-key': TEST_KEY } })).text();
    const value = (pattern: RegExp) => Number(metrics.match(pattern)?.[1]);
    expect(value(/^sync_runs_total\{status="SUCCEEDED"\} (\d+)/m)).toBe(1);
    expect(value(/^sync_runs_total\{status="FAILED"\} (\d+)/m)).toBe(1);
    expect(value(/^upstream_calls_total\{provider="open-meteo",outcome="ok"\} (\d+)/m)).toBe(N);
    expect(value(/^upstream_calls_total\{provider="open-meteo",outcome="HTTP error"\} (\d+)/m)).toBe(N);
    expect(value(/^upstream_circuit_open\{provider="open-meteo"\} (\d+)/m)).toBe(0);
  });

  it('checks the history limit', async () => {
    const { app } = await syncingServer();
    for (const ok of ['limit=1', 'limit=100']) expect((await getJson(app, `/api/sync/history?${ok}`)).status).toBe(200);
    for (const [q, bound] of [
      ['limit=0', '>= 1'],
      ['limit=101', '<= 100'],
      ['limit=two', 'an integer'],
      ['limit=1.5', 'an integer'],
    ]) {
      expect(expectProblem(await getJson(app, `/api/sync/history?${q}`), 400).errors![0]!.bound).toBe(bound);
    }
    expectProblem(await getJson(app, '/api/sync/run'), 405);
  });

  it('streams progress over SSE (Subscription.syncProgress) and runs through Mutation.runSync', async () => {
    const { app } = await syncingServer();
    fake.mode = 'slow';
    fake.delayMs = 5;
    // The stream is read under a time-out: a run that never ends fails the test instead of hanging it.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('no IDLE event within 20 s')), 20_000);
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': TEST_KEY },
      body: JSON.stringify({ query: 'subscription { syncProgress { state progress { done total } lastRun { status } } }' }),
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const mutation = await getJson(app, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { runSync { state } }' }),
    });
    expect(mutation.body.data.runSync.state).toBe('RUNNING');
    type Event = { state: string; progress: { done: number; total: number }; lastRun: { status: string } | null };
    const events = await readEvents<Event>(res, 'syncProgress', (xs) => xs.length > 2 && xs.at(-1)!.state === 'IDLE');
    clearTimeout(timer);
    controller.abort();
    const running = events.filter((e) => e.state === 'RUNNING');
    // Every resort's step, in order (the stream drops none), ending with the whole run.
    expect(running.map((e) => e.progress.done).filter((done) => done > 0)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(running.at(-1)!.progress).toEqual({ done: N, total: N });
    expect(events.at(-1)!.lastRun!.status).toBe('SUCCEEDED');
  });
});

describe('a client leaving a syncProgress stream', () => {
  it('is not an error in the log: debug at most', async () => {
    const log = capturedLog();
    // One stream per key: a second is admitted only once the server has seen the first go.
    const app = await startTestServer({ logger: log.logger, config: { streams: { perKey: 1, total: 4, maxLifetimeMs: 60_000 } } });
    try {
      const open = async () => {
        const leave = new AbortController();
        const res = await fetch(`${app.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': TEST_KEY },
          body: JSON.stringify({ query: 'subscription { syncProgress { state } }' }),
          signal: leave.signal,
        });
        return { leave, res };
      };
      // A stream once the server admits one: a refusal (429, the slot still held) is read and asked again.
      const admitted = () =>
        until(
          async () => {
            const s = await open();
            if (s.res.status !== 200) await s.res.text();
            return s;
          },
          (s) => s.res.status === 200,
        );
      const since = log.lines().length;
      for (let round = 0; round < 2; round++) {
        const stream = await admitted();
        // The subscription runs: its first status came, and it waits for the next change.
        expect(await readEvents<{ state: string }>(stream.res, 'syncProgress', (xs) => xs.length > 0)).toEqual([{ state: 'IDLE' }]);
        stream.leave.abort();
      }
      // And the second has gone too, seen by the server.
      (await admitted()).leave.abort();
      const loud = log
        .lines()
        .slice(since)
        .filter((l) => l.level > 20 && l.msg !== 'request');
      expect(loud).toEqual([]);
      expect(JSON.stringify(log.lines())).not.toMatch(/AbortError/);
    } finally {
      await app.close();
    }
  });
});

describe('while a run publishes', () => {
  it('readers see the old data or the whole run, never a mix', async () => {
    // Sixty resorts, their snapshots built five per turn of the event loop, as a list of thousands
    // of imported resorts is (25 a turn): a publish can land between two chunks of one answer.
    const listed = loadResortCatalogue()
      .slice(0, 60)
      .map((r) => r.id);
    const dbPath = privateDatabase('gateway-sync-', { weather: false, resorts: listed });
    const seed = await startTestServer({ dbPath, now: clock });
    await seed.close();
    // Time-outs no busy machine reaches: every resort is updated, so the run is whole.
    const app = await startTestServer({
      dbPath,
      now: clock,
      config: { ...meteo(), upstream: { ...meteo().upstream!, concurrency: 16, timeoutMs: 60_000 }, snapshotChunk: 5 },
    });
    try {
      // Where each resort's conditions come from, in one answer.
      const query = '{ resorts(paging: { limit: 200 }) { resorts { id conditions { source } } } }';
      const sources = async () => {
        const r = await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
        const list = r.body.data.resorts.resorts as { id: string; conditions: { source: string } }[];
        expect(list).toHaveLength(listed.length);
        return list.map((x) => `${x.id}:${x.conditions.source}`).join(',');
      };
      const before = await sources();
      expect(before).not.toMatch(/open-meteo/);
      // The provider holds its answers until released: three readings surely fall inside the run,
      // whatever the machine's speed; the rest while it publishes and after.
      const release = fake.hold();
      await post(app);
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        expect((await status(app)).state).toBe('RUNNING');
        seen.push(await sources());
      }
      release();
      for (;;) {
        const s = await status(app);
        seen.push(await sources());
        if (s.state === 'IDLE') break;
      }
      const after = await sources();
      // The whole run: every listed resort has the provider's data.
      const run = (await status(app)).lastRun;
      expect(run.status).toBe('SUCCEEDED');
      expect(after.split(',').filter((x) => x.endsWith(':open-meteo'))).toHaveLength(listed.length);
      // Every answer while it published was one or the other, never a blend.
      for (const answer of seen) expect([before, after]).toContain(answer);
      expect(seen.length).toBeGreaterThan(2);
    } finally {
      await app.close();
    }
  });
});

describe('one list, one version of the data', () => {
  it('a publish between two chunks of one list starts the list again on the new data', async () => {
    const app = await startTestServer({ privateDb: true, now: clock });
    try {
      const ids = app.repos.resorts
        .all()
        .slice(0, 200)
        .map((r) => r.id);
      // The request's loaders over the server's own repositories, 25 resorts per turn of the event loop.
      const services = {
        repos: app.repos,
        weatherWindow: new WeatherWindow(app.repos.resorts, app.repos.weather, simulatedProvider, clock, app.logger),
        snapshots: new SnapshotStore(),
        dataVersion: new DataVersion(app.repos, clock),
        snapshotChunk: 25,
        now: clock,
      } as unknown as Services;
      const loaders = new RequestLoaders(services);
      const list = loaders.snapshotByResort.loadMany(ids);
      // Runs after the first chunk is read and before the second (Node runs this check-phase
      // callback before the one the loader queues after its first chunk): a real write of new
      // rows for every resort, as a sync publish makes.
      setImmediate(() => {
        const days = app.repos.weather.daysOf(ids, addDays(today, -10), addDays(today, 10));
        app.repos.weather.write(days.map((d) => ({ ...d, source: 'open-meteo' })));
      });
      const snapshots = await list;
      const sources = new Set(snapshots.map((x) => (x instanceof Error ? x.message : x.source)));
      expect([...sources]).toEqual(['open-meteo']);
    } finally {
      await app.close();
    }
  });
});

describe('a real provider', () => {
  it('starts a run at start when today’s window is missing, and not when it is there', async () => {
    const dbPath = freshDb();
    // Time-outs long enough for the provider to be held while the server starts on a busy machine.
    const config = { ...meteo(), upstream: { ...meteo().upstream!, timeoutMs: 30_000 }, syncIntervalMinutes: 600 };
    const release = fake.hold();
    const first = await startTestServer({ dbPath, now: clock, config });
    try {
      // Listening, but not ready for a load balancer until the run has written today's window.
      const starting = await getJson(first, '/readyz', { apiKey: null });
      expect([starting.status, starting.body]).toEqual([503, { status: 'starting', waiting: ['the weather window of today'] }]);
      release();
      const s = await until(
        () => status(first),
        (x) => x.lastRun !== null && x.state === 'IDLE',
      );
      expect(s.lastRun).toMatchObject({ trigger: 'SCHEDULED', status: 'SUCCEEDED', resortsUpdated: N });
      expect(fake.requests.length).toBeGreaterThanOrEqual(N);
      expect((await getJson(first, '/readyz')).status).toBe(200);
    } finally {
      release();
      await first.close();
    }
    fake.requests.length = 0;
    const second = await startTestServer({ dbPath, now: clock, config });
    try {
      const s = await status(second);
      expect(s.state).toBe('IDLE');
      const runs = (await getJson(second, '/api/sync/history')).body.runs as {
        id: number;
        trigger: string;
        status: string;
        resortsUpdated: number;
        startedAt: string;
      }[];
      expect(runs.map((r) => `${r.trigger} ${r.status} ${r.resortsUpdated}`)).toEqual([`SCHEDULED SUCCEEDED ${N}`]);
      expect(fake.requests).toEqual([]);
    } finally {
      await second.close();
    }
  });
});

describe('scheduled runs', () => {
  it('run every N minutes and say when the next one is', async () => {
    // A fixed clock: the next run is due exactly one interval (0.6 s) after the last one started.
    const app = await startTestServer({ privateDb: true, now: clock, config: { syncIntervalMinutes: 0.01 } });
    try {
      expect((await status(app)).nextScheduledRun).toBe(new Date(clock().getTime() + 600).toISOString());
      const s = await until(
        () => status(app),
        (x) => x.lastRun?.trigger === 'SCHEDULED',
        10_000,
      );
      expect(s.lastRun.status).toBe('SUCCEEDED');
      expect(Date.parse(s.nextScheduledRun) - Date.parse(s.lastRun.startedAt)).toBe(600);
    } finally {
      await app.close();
    }
  });
});

describe('crash consistency', () => {
  /** Every stored weather row, after checking the file's integrity. */
  const rows = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      return db.prepare('SELECT * FROM daily_weather ORDER BY resort_id, date').all() as { resort_id: string; source: string }[];
    } finally {
      db.close();
    }
  };
  const seeded = async (file = freshDb()) => {
    const dbPath = file;
    const seed = await startTestServer({ dbPath });
    await seed.close();
    return dbPath;
  };
  /** A server process syncing from the fake Open-Meteo; both on the run's clock. */
  beforeEach(() => {
    fake.today = isoDate(runNow());
  });
  const envFor = () => ({
    API_ADMIN_KEYS: TEST_KEY,
    PROVIDER: 'open-meteo',
    OPEN_METEO_FORECAST_URL: `${fake.url}/v1/forecast`,
    OPEN_METEO_ARCHIVE_URL: `${fake.url}/v1/archive`,
    UPSTREAM_TIMEOUT_MS: '60000',
  });

  it('a server killed with SIGKILL mid-run leaves a consistent database with the old data, and the run FAILED at the next start', async () => {
    // The whole catalogue: at two slow calls at a time, the run is surely going on when it is killed.
    const dbPath = await seeded(wholeCatalogueDb());
    const before = rows(dbPath);
    expect(before.length).toBeGreaterThan(100);

    fake.mode = 'slow';
    fake.delayMs = 100;
    const server = spawnServer(dbPath, { ...envFor(), UPSTREAM_CONCURRENCY: '2' });
    try {
      const url = await server.url;
      const call = (p: string, init: RequestInit = {}) => fetch(url + p, { ...init, headers: { 'x-api-key': TEST_KEY } }).then((r) => r.json());
      expect((await call('/api/sync/run', { method: 'POST' })).state).toBe('RUNNING');
      await until(
        () => call('/api/sync/status'),
        (s) => s.progress.done >= 10,
      );
      // The run has staged resorts (the fake has answered for them): none of that may show.
      expect(fake.requests.length).toBeGreaterThanOrEqual(10);
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
    }

    // Every row as it was: the resorts the run staged included.
    expect(rows(dbPath)).toEqual(before);
    const restarted = await startTestServer({ dbPath });
    try {
      const run = (await getJson(restarted, '/api/sync/history')).body.runs[0];
      expect(run).toMatchObject({ status: 'FAILED', provider: 'open-meteo' });
      expect(run.error).toMatch(/interrupted/);
      expect(run.finishedAt).toBeTruthy();
      expect((await getJson(restarted, '/api/sync/status')).body.state).toBe('IDLE');
      const staged = new Database(dbPath, { readonly: true }).prepare('SELECT count(*) AS n FROM sync_staging').get() as { n: number };
      expect(staged.n).toBe(0);
    } finally {
      await restarted.close();
    }
  }, 60_000);

  // Between these two, the publish is one SQLite transaction: readers never see half of one
  // ("while a run publishes" above), and SQLite's journal rolls an interrupted one back.
  it('killed right after the publish: every resort has the new rows, and the run is SUCCEEDED after a restart', async () => {
    const dbPath = await seeded();
    const before = rows(dbPath);
    const resorts = new Set(before.map((r) => r.resort_id)).size;
    expect(before.every((r) => r.source === 'simulated')).toBe(true);
    const server = spawnServer(dbPath, { ...envFor(), UPSTREAM_CONCURRENCY: '8' });
    try {
      const url = await server.url;
      const call = (p: string, init: RequestInit = {}) => fetch(url + p, { ...init, headers: { 'x-api-key': TEST_KEY } }).then((r) => r.json());
      await call('/api/sync/run', { method: 'POST' });
      const s = await until(
        () => call('/api/sync/status'),
        (x) => x.state === 'IDLE' && x.lastRun !== null,
        20_000,
      );
      expect(s.lastRun.status).toBe('SUCCEEDED');
    } finally {
      // No shutdown: what the run wrote must already be on disk.
      server.child.kill('SIGKILL');
      await server.exited;
    }
    const after = rows(dbPath);
    expect(new Set(after.filter((r) => r.source === 'open-meteo').map((r) => r.resort_id)).size).toBe(resorts);
    const restarted = await startTestServer({ dbPath });
    try {
      expect((await getJson(restarted, '/api/sync/history')).body.runs[0]).toMatchObject({ status: 'SUCCEEDED', resortsUpdated: resorts });
    } finally {
      await restarted.close();
    }
  }, 60_000);
});
