import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.js';
import { cliCommand, spawnServer, type ServerProcess } from './helpers/process.js';
import { haveRedis, startRedis, type TestRedis } from './helpers/redis.js';
import { privateDatabase, SYNC_RESORTS } from './helpers/server.js';

/** Resorts each replica's database has, and a run updates. */
const N = SYNC_RESORTS.length;
import { clockEnv, runNow } from './helpers/clock.js';
import { isoDate } from '../src/domain/dates.js';
import { readEvents, until } from './helpers/wait.js';

/**
 * Replicas as separate processes, each with its own SQLite file, sharing one real Redis
 * (redis-server on a Unix socket, its own data directory). Replicas, their tools and the fake
 * provider run on the run's clock (CLOCK_START).
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const ADMIN = 'szg_replica_admin_key';
const run = promisify(execFile);

let redis: TestRedis;
let fake: FakeUpstream;
beforeAll(async () => {
  if (!haveRedis) return;
  redis = await startRedis();
  fake = await startFakeUpstream({ today: isoDate(runNow()) });
});
afterAll(async () => {
  await redis?.stop();
  await fake?.close();
});

let replicas: ServerProcess[] = [];
beforeEach(({ onTestFailed }) => {
  if (!haveRedis) return;
  // The replicas' log is piped, not printed: a failure shows what each said about the cluster
  // (this test's replicas, which the cleanup after it has already taken out of `replicas`).
  const these = replicas;
  onTestFailed(() => {
    for (const [i, r] of these.entries())
      console.error(
        `replica-${i} said:\n${r
          .output()
          .split('\n')
          .filter((l) => /"level":[456]0|leader|window|sync run|redis/.test(l))
          .join('\n')}`,
      );
  });
  fake.mode = 'ok';
  fake.today = isoDate(runNow());
  fake.requests.length = 0;
});
/** Kills the replicas, and empties Redis for the next ones. */
async function stopReplicas() {
  if (!haveRedis) return;
  for (const r of replicas) r.child.kill('SIGKILL');
  await Promise.all(replicas.map((r) => r.exited));
  replicas = [];
  // A failed cleanup fails the test that needed it: the next replicas would meet this data.
  expect((await run('redis-cli', [...redis.cliArgs, 'FLUSHALL'])).stdout.trim()).toBe('OK');
}

/** Starts `n` replicas, each on a database of its own (`dbs[i]` when given: a replica started again on its file). */
async function startReplicas(n: number, env: Record<string, string> = {}, { weather = true, dbs = [] as string[] } = {}): Promise<string[]> {
  for (let i = 0; i < n; i++) {
    replicas.push(
      spawnServer(dbs[i] ?? privateDatabase('gateway-replica-', { weather, resorts: SYNC_RESORTS }), {
        REDIS_URL: redis.url,
        REPLICA_ID: `replica-${i}`,
        API_ADMIN_KEYS: ADMIN,
        API_KEYS_RATE: '1000',
        PROVIDER: 'open-meteo',
        OPEN_METEO_FORECAST_URL: `${fake.url}/v1/forecast`,
        OPEN_METEO_ARCHIVE_URL: `${fake.url}/v1/archive`,
        UPSTREAM_CONCURRENCY: '8',
        // Failures come from the fake's modes, never from a busy machine's slow answers.
        UPSTREAM_TIMEOUT_MS: '60000',
        ...env,
      }),
    );
  }
  return Promise.all(replicas.slice(-n).map((r) => r.url));
}

const call = (url: string, p: string, key = ADMIN, init: RequestInit = {}) => fetch(url + p, { ...init, headers: { 'x-api-key': key, ...init.headers } });
const json = async (url: string, p: string, key = ADMIN, init: RequestInit = {}) => (await call(url, p, key, init)).json();

/**
 * Two replicas, and a run under way on the leader: the provider has answered for five resorts and
 * holds the rest until `release`. The follower has served the simulated window (and so has seen
 * the key, which it then takes while Redis is away).
 */
async function runUnderWayOnTwo(): Promise<{ leader: number; follower: string; release: () => void }> {
  const urls = await startReplicas(2);
  const leader = await until(
    async () => replicas.findIndex((r) => r.output().includes('this replica is now the sync leader')),
    (i) => i >= 0,
  );
  const follower = urls[1 - leader]!;
  expect((await json(follower, '/api/resorts/vail')).source).toBe('simulated');
  const release = fake.hold(5);
  await json(urls[leader]!, '/api/sync/run', ADMIN, { method: 'POST' });
  await until(
    () => json(urls[leader]!, '/api/sync/status'),
    (x) => x.state === 'RUNNING' && x.progress.done === 5,
  );
  return { leader, follower, release };
}

/** A `syncProgress` subscription over SSE on one replica, with these fields. */
const subscribeToSync = (url: string, fields: string, signal: AbortSignal) =>
  fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': ADMIN },
    body: JSON.stringify({ query: `subscription { syncProgress { ${fields} } }` }),
    signal,
  });

/** `npm run keys` against the shared Redis. */
async function keys(...args: string[]): Promise<string> {
  const { stdout } = await run(...cliCommand('keys', ...args), { cwd: ROOT, env: { ...process.env, REDIS_URL: redis.url, ...clockEnv() } });
  return stdout;
}

/**
 * One set of three replicas for the tests that leave them running as they were (keys of their
 * own names, one run after another): starting replicas is most of what these tests cost.
 */
describe.skipIf(!haveRedis)('three replicas sharing one Redis', () => {
  let urls: string[];
  beforeAll(async () => {
    urls = await startReplicas(3);
  });
  afterAll(stopReplicas);

  it('a key with a quota of 40 gets exactly 40 answers across three replicas, under concurrency', async () => {
    const key = (await keys('create', '--name', 'forty', '--quota', '40', '--rate', '1000')).match(/szg_[\w-]+/)![0];
    const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => call(urls[i % 3]!, '/api/zip/90210', key)));
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 429);
    expect([ok.length, refused.length]).toEqual([40, 80]);
    for (const r of refused) {
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
      expect(r.headers.get('ratelimit-limit')).toBe('40');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await r.json()).code).toBe('RATE_LIMITED');
    }
    // Each answered request saw its own count: 39 down to 0 remaining, every value once.
    expect(ok.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(await keys('list')).toMatch(/forty\s+free\s+40\/40 this month/);
  });

  it('a key revoked with npm run keys is refused by every replica from the next request', async () => {
    const key = (await keys('create', '--name', 'soon-gone')).match(/szg_[\w-]+/)![0];
    for (const url of urls) expect((await call(url, '/api/stats', key)).status).toBe(200);
    await keys('revoke', 'soon-gone');
    for (const url of urls) {
      const r = await call(url, '/api/stats', key);
      expect(r.status).toBe(401);
      expect((await r.json()).detail).toBe('The API key has been revoked.');
    }
  });

  it('two replicas asked to sync at once start one run; every replica then serves the new window with the same ETag', async () => {
    // Whatever ran before this test on these replicas: this test counts from there.
    const runsBefore = (await json(urls[0]!, '/api/sync/history')).runs as { id: number }[];
    // The provider answers nothing until both are answered: the run is surely still going on.
    const release = fake.hold();
    const [a, b] = await Promise.all([json(urls[0]!, '/api/sync/run', ADMIN, { method: 'POST' }), json(urls[1]!, '/api/sync/run', ADMIN, { method: 'POST' })]);
    release();
    expect([a.state, b.state]).toEqual(['RUNNING', 'RUNNING']);
    await until(
      () => json(urls[2]!, '/api/sync/status'),
      (s) => s.state === 'IDLE' && s.lastRun !== null && !runsBefore.some((r) => r.id === s.lastRun.id),
    );
    for (const url of urls) {
      const history = await json(url, '/api/sync/history');
      expect(history.runs).toHaveLength(runsBefore.length + 1);
      expect(history.runs[0]).toMatchObject({ status: 'SUCCEEDED', trigger: 'MANUAL', resortsUpdated: N });
    }
    // One run's worth of provider calls, not one per replica.
    expect(fake.requests.filter((r) => r.startsWith('/v1/forecast')).length).toBe(N);
    const answers = await until(
      () =>
        Promise.all(
          urls.map(async (url) => {
            const r = await call(url, '/api/resorts/vail');
            return { etag: r.headers.get('etag'), body: await r.json() };
          }),
        ),
      (xs) => xs.every((x) => x.body.source === 'open-meteo'),
    );
    expect(new Set(answers.map((x) => x.etag)).size).toBe(1);
    expect(answers[0]!.body.snow.depthBase).toBe(125);
  });

  it('a subscriber on one replica receives the progress of a run on another', async () => {
    fake.mode = 'slow';
    fake.delayMs = 10;
    const leader = await until(
      async () => replicas.findIndex((r) => r.output().includes('this replica is now the sync leader')),
      (i) => i >= 0,
    );
    const followers = urls.filter((_, i) => i !== leader);
    const follower = followers[0]!;
    const startedBefore = replicas.map((r) => r.output().split('sync run started').length);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('no IDLE event within 30 s')), 30_000);
    const events: { state: string; progress: { done: number } }[] = [];
    try {
      // Subscribed on the follower; the run goes on on the leader.
      const res = await subscribeToSync(follower, 'state progress { done total }', controller.signal);
      await json(urls[leader]!, '/api/sync/run', ADMIN, { method: 'POST' });
      events.push(
        ...(await readEvents<(typeof events)[number]>(res, 'syncProgress', (xs) => xs.some((e) => e.state === 'RUNNING') && xs.at(-1)!.state === 'IDLE')),
      );
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
    // Every resort's step, in order: the leader publishes each change, and the follower passes each on.
    const running = events.filter((e) => e.state === 'RUNNING');
    expect(running.map((e) => e.progress.done).filter((done) => done > 0)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    // This run, too, went on on the leader alone.
    const started = replicas.map((r, i) => r.output().split('sync run started').length - startedBefore[i]!);
    expect(started.filter((_n, i) => i !== leader)).toEqual([0, 0]);
    expect(started[leader]).toBe(1);
  });

  it('a subscriber connection that drops and comes back: its replica tells subscribers the status again', async () => {
    const url = urls[1]!;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('no second event within 20 s')), 20_000);
    let dropped = false;
    try {
      const res = await subscribeToSync(url, 'state lastRun { id }', controller.signal);
      const events = await readEvents<{ state: string; lastRun: { id: number } | null }>(res, 'syncProgress', (xs) => {
        // After the first event, Redis drops every subscriber connection (as a network blip would).
        if (xs.length === 1 && !dropped) {
          dropped = true;
          void run('redis-cli', [...redis.cliArgs, 'CLIENT', 'KILL', 'TYPE', 'pubsub']);
        }
        return xs.length >= 2;
      });
      // Nothing changed in between, and nothing published while it was away is assumed away.
      expect(events).toHaveLength(2);
      expect(events[1]).toEqual(events[0]);
      expect(events[0]!.state).toBe('IDLE');
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
    expect(replicas[1]!.output()).toContain('redis subscriber connection back');
  });
});

/**
 * The leader's lease runs out now: Redis is told (PEXPIRE), instead of the test waiting out the
 * lease's 6 s; expiring a key is Redis's part, taking over from a leader whose lease is gone is ours.
 */
async function leaseRunsOut(): Promise<void> {
  expect((await run('redis-cli', [...redis.cliArgs, 'PEXPIRE', 'szg:sync:leader', '1'])).stdout.trim()).toBe('1');
}

/** Failures, each on replicas of its own. */
describe.skipIf(!haveRedis)('replicas sharing one Redis, when one of them or Redis goes away', () => {
  afterEach(stopReplicas);

  it('the leader killed mid-run: the run ends FAILED, another replica leads, and the next scheduled run succeeds', async () => {
    // The provider answers for five resorts, then holds the rest: the run is under way when the leader dies.
    const release = fake.hold(5);
    // A real provider and no data: the leader starts a run as soon as it takes the lease.
    const urls = await startReplicas(2, { SYNC_INTERVAL_MINUTES: '0.15', UPSTREAM_CONCURRENCY: '2' }, { weather: false });
    const leaderIndex = await until(
      async () => replicas.findIndex((r) => r.output().includes('this replica is now the sync leader')),
      (i) => i >= 0,
    );
    const survivor = urls[1 - leaderIndex]!;
    await until(
      () => json(survivor, '/api/sync/status'),
      (s) => s.state === 'RUNNING' && s.progress.done === 5,
    );
    replicas[leaderIndex]!.child.kill('SIGKILL');
    await replicas[leaderIndex]!.exited;
    release();
    await leaseRunsOut();
    // The survivor takes the lease at its next tick, fails the orphaned run, and schedules on.
    const history = await until(
      () => json(survivor, '/api/sync/history'),
      (h) => h.runs.some((r: { status: string }) => r.status === 'SUCCEEDED'),
      40_000,
    );
    const runs = history.runs as { id: number; status: string; error: string | null }[];
    const failed = runs.find((r) => r.status === 'FAILED')!;
    const succeeded = runs.find((r) => r.status === 'SUCCEEDED')!;
    expect(failed.error).toMatch(/^interrupted: the replica running it stopped/);
    expect(succeeded.id).toBeGreaterThan(failed.id);
    expect(replicas[1 - leaderIndex]!.output()).toContain('this replica is now the sync leader');
    expect((await json(survivor, '/api/resorts/vail')).source).toBe('open-meteo');
  }, 60_000);

  it('a replica that missed the announcement of a window catches up at its next tick, and one that reconnects registers the environment keys again', async () => {
    const urls = await startReplicas(2);
    await json(urls[0]!, '/api/sync/run', ADMIN, { method: 'POST' });
    const s = await until(
      () => json(urls[1]!, '/api/sync/status'),
      (x) => x.state === 'IDLE' && x.lastRun?.status === 'SUCCEEDED',
    );
    // A run ends once its window is shared: a replica told it SUCCEEDED finds that window in Redis.
    const version = Number((await run('redis-cli', [...redis.cliArgs, 'GET', 'szg:sync:window-version'])).stdout.trim());
    expect(version).toBe(s.lastRun.id);
    const applied = (r: ServerProcess, v: number) =>
      r
        .output()
        .split('\n')
        .some((l) => l.includes('applied the window another replica published') && l.includes(`"syncRun":${v}`));
    // A newer window version with no announcement: as if every replica had missed it (pub/sub
    // keeps nothing for a subscriber that is reconnecting). Each finds it on its own.
    expect((await run('redis-cli', [...redis.cliArgs, 'SET', 'szg:sync:window-version', String(version + 1)])).stdout.trim()).toBe('OK');
    await until(
      async () => replicas.map((r) => applied(r, version + 1)),
      (xs) => xs.every(Boolean),
      20_000,
    );
    // ... without a reconnection (each connected once).
    for (const r of replicas) expect(r.output().split('"msg":"redis connected"').length - 1).toBe(1);
    for (const url of urls) expect((await json(url, '/api/resorts/vail')).source).toBe('open-meteo');
    // A Redis that came back without its data (no persistence): the keys from API_KEYS and
    // API_ADMIN_KEYS are registered again on reconnection, without a restart.
    expect((await run('redis-cli', [...redis.cliArgs, 'FLUSHALL'])).stdout.trim()).toBe('OK');
    expect((await call(urls[0]!, '/api/stats')).status).toBe(401);
    await run('redis-cli', [...redis.cliArgs, 'CLIENT', 'KILL', 'TYPE', 'normal']);
    for (const url of urls)
      await until(
        () => call(url, '/api/stats').then((r) => r.status),
        (st) => st === 200,
        20_000,
      );
  }, 60_000);

  it('a window is never overwritten by an older one: a run finishing after a newer window was shared keeps its own to itself', async () => {
    const urls = await startReplicas(2);
    await json(urls[0]!, '/api/sync/run', ADMIN, { method: 'POST' });
    const first = await until(
      () => json(urls[0]!, '/api/sync/status'),
      (x) => x.state === 'IDLE' && x.lastRun?.status === 'SUCCEEDED',
    );
    const redisGet = async (key: string) => (await run('redis-cli', [...redis.cliArgs, 'GET', key], { encoding: 'latin1' })).stdout;
    // A newer window than any this replica will publish next (as if another replica's later run had shared it).
    const newer = first.lastRun.id + 10;
    expect((await run('redis-cli', [...redis.cliArgs, 'SET', 'szg:sync:window-version', String(newer)])).stdout.trim()).toBe('OK');
    const storedWindow = await redisGet('szg:sync:window');
    expect(storedWindow.length).toBeGreaterThan(1000);
    // The next run's id is lower than the shared version: its window must not replace it.
    await json(urls[0]!, '/api/sync/run', ADMIN, { method: 'POST' });
    const second = await until(
      () => json(urls[0]!, '/api/sync/status'),
      (x) => x.state === 'IDLE' && x.lastRun?.id > first.lastRun.id,
    );
    expect(second.lastRun.id).toBeLessThan(newer);
    // Whichever replica ran it says so.
    await until(
      async () => replicas.map((r) => r.output()).join('\n'),
      (out) => out.includes('a newer window was shared meanwhile; this one is not'),
    );
    expect(Number(await redisGet('szg:sync:window-version'))).toBe(newer);
    expect(await redisGet('szg:sync:window')).toBe(storedWindow);
  }, 60_000);

  it('a window no replica can read is passed over once, and the next run, numbered after it, replaces it everywhere', async () => {
    const urls = await startReplicas(2);
    const cli = async (...args: string[]) => (await run('redis-cli', [...redis.cliArgs, ...args])).stdout.trim();
    expect(await cli('SET', 'szg:sync:window', 'not a gzipped window')).toBe('OK');
    expect(await cli('SET', 'szg:sync:window-version', '1000')).toBe('OK');
    await cli('PUBLISH', 'szg:sync:published', '1000');
    const passedOver = (r: ServerProcess) => r.output().split('the published window cannot be applied here: passed over').length - 1;
    await until(
      async () => replicas.map(passedOver),
      (n) => n.every((x) => x >= 1),
    );
    await json(urls[0]!, '/api/sync/run', ADMIN, { method: 'POST' });
    const done = await until(
      () => json(urls[1]!, '/api/sync/status'),
      (x) => x.state === 'IDLE' && x.lastRun?.id > 1000,
    );
    expect(done.lastRun.status).toBe('SUCCEEDED');
    await until(
      async () => Number(await cli('GET', 'szg:sync:window-version')),
      (v) => v === done.lastRun.id,
    );
    // The replica that did not run it applies its window; neither tried the unreadable one again.
    await until(
      async () => replicas.map((r) => r.output()).join('\n'),
      (out) => out.includes(`"syncRun":${done.lastRun.id},"days"`),
    );
    expect(replicas.map(passedOver)).toEqual([1, 1]);
  }, 60_000);

  it('a run that finishes while Redis is away is shared once it is back: its window, its status and its record', async () => {
    const { leader, follower, release } = await runUnderWayOnTwo();
    // Redis goes, and the provider answers the rest: the run ends well inside the lease the leader keeps.
    await redis.stop();
    release();
    try {
      await until(
        async () => replicas[leader]!.output(),
        (out) => out.includes('could not share the published window yet'),
      );
      expect((await json(follower, '/api/resorts/vail')).source).toBe('simulated');
    } finally {
      await redis.start();
    }
    // No new run: the leader shares what it published once Redis is back.
    await until(
      () => json(follower, '/api/resorts/vail'),
      (b) => b.source === 'open-meteo',
    );
    const status = await until(
      () => json(follower, '/api/sync/status'),
      (x) => x.state === 'IDLE' && x.lastRun !== null,
    );
    expect(status.lastRun).toMatchObject({ status: 'SUCCEEDED', resortsUpdated: N });
    expect((await json(follower, '/api/sync/history')).runs).toEqual([status.lastRun]);
    expect(fake.requests.filter((r) => r.startsWith('/v1/forecast')).length).toBe(N);
  }, 60_000);

  it('a replica that does not lead cannot start a run while Redis is frozen or away: 503 SYNC_LEADER_UNREACHABLE, and no run starts', async () => {
    const urls = await startReplicas(2);
    const leader = await until(
      async () => replicas.findIndex((r) => r.output().includes('this replica is now the sync leader')),
      (i) => i >= 0,
    );
    const follower = urls[1 - leader]!;
    // Seen by the follower: its key check is answered on local limits while Redis is away.
    expect((await call(follower, '/api/stats')).status).toBe(200);
    await until(
      () => json(follower, '/api/sync/status'),
      (x) => x.state === 'IDLE',
    );
    const started = () => replicas.map((r) => r.output().split('sync run started').length);
    const startedBefore = started();
    const refused = async () => {
      const r = await call(follower, '/api/sync/run', ADMIN, { method: 'POST' });
      expect([r.status, r.headers.get('content-type')]).toEqual([503, 'application/problem+json; charset=utf-8']);
      expect((await r.json()).code).toBe('SYNC_LEADER_UNREACHABLE');
    };
    redis.pause();
    try {
      await refused();
    } finally {
      redis.resume();
    }
    await redis.stop();
    try {
      await refused();
    } finally {
      await redis.start();
    }
    expect(started()).toEqual(startedBefore);
  }, 60_000);

  it('two runs that finish while Redis is away both go on record once it is back', async () => {
    const { leader, follower, release } = await runUnderWayOnTwo();
    const leaderUrl = await replicas[leader]!.url;
    let first: { lastRun: { id: number } };
    let second: { lastRun: { id: number } };
    await redis.stop();
    release();
    try {
      first = await until(
        () => json(leaderUrl, '/api/sync/status'),
        (x) => x.state === 'IDLE' && x.lastRun !== null,
      );
      // The leader keeps leading while Redis is away (its lease runs out elsewhere first).
      expect((await call(leaderUrl, '/api/sync/run', ADMIN, { method: 'POST' })).status).toBe(200);
      second = await until(
        () => json(leaderUrl, '/api/sync/status'),
        (x) => x.state === 'IDLE' && x.lastRun?.id > first.lastRun.id,
      );
    } finally {
      await redis.start();
    }
    const history = await until(
      () => json(follower, '/api/sync/history'),
      (h) => h.runs.length >= 2,
    );
    expect(history.runs).toEqual([second.lastRun, first.lastRun]);
    expect((await json(follower, '/api/sync/status')).lastRun).toEqual(second.lastRun);
  }, 60_000);

  it('a leader paused past its lease finishes its run: its outcome replaces the FAILED the next leader put on record', async () => {
    const { leader, follower, release } = await runUnderWayOnTwo();
    // A stalled process (a long pause, a frozen VM): its lease runs out and the other replica leads.
    replicas[leader]!.child.kill('SIGSTOP');
    let runId: number;
    try {
      await leaseRunsOut();
      await until(
        async () => replicas[1 - leader]!.output(),
        (out) => out.includes('a sync run of a stopped replica marked FAILED'),
      );
      const marked = (await json(follower, '/api/sync/history')).runs;
      expect(marked).toMatchObject([{ status: 'FAILED', error: expect.stringContaining('interrupted') }]);
      runId = marked[0].id;
    } finally {
      release();
      replicas[leader]!.child.kill('SIGCONT');
    }
    const history = await until(
      () => json(follower, '/api/sync/history'),
      (h) => h.runs[0]?.status !== 'FAILED',
    );
    expect(history.runs).toHaveLength(1);
    expect(history.runs[0]).toMatchObject({ id: runId!, status: 'SUCCEEDED', resortsUpdated: N });
    expect((await json(follower, '/api/sync/status')).lastRun).toEqual(history.runs[0]);
    await until(
      () => json(follower, '/api/resorts/vail'),
      (b) => b.source === 'open-meteo',
    );
  }, 60_000);

  it('Redis stopped and started again: replicas keep answering, say so in /readyz, and recover without a restart', async () => {
    // The offline provider: each replica fills its own window, so it is ready without a run.
    const urls = await startReplicas(2, { PROVIDER: 'simulated' });
    for (const url of urls)
      await until(
        () => call(url, '/readyz', '').then((r) => r.status),
        (s) => s === 200,
      );
    for (const url of urls) expect((await call(url, '/api/zip/90210')).status).toBe(200);
    const count = (r: ServerProcess, line: string) => r.output().split(line).length - 1;
    const leadersBefore = replicas.map((r) => count(r, 'this replica is now the sync leader'));
    await redis.stop();
    try {
      for (const url of urls) {
        // Keys a replica has seen keep working, on local limits; reads are local anyway.
        const seen = await call(url, '/api/zip/90210');
        expect([seen.status, seen.status === 200 ? '' : await seen.text()]).toEqual([200, '']);
        expect((await call(url, '/api/resorts/vail')).status).toBe(200);
        // A GraphQL answer (never one the cache kept) is charged to the key's budget in memory.
        const gql = await call(url, '/graphql', ADMIN, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ zip(zip: "90210") { city } }' }),
        });
        expect([gql.status, (await gql.json()).extensions?.cost?.requestedQueryCost]).toEqual([200, expect.any(Number)]);
        const unknown = await call(url, '/api/zip/90210', 'szg_never_seen_here');
        expect(unknown.status).toBe(503);
        expect((await unknown.json()).code).toBe('KEY_STORE_UNAVAILABLE');
        const ready = await call(url, '/readyz', '');
        expect(ready.status).toBe(200);
        expect((await ready.json()).notes).toEqual(['redis unreachable: local limits and local data until it is back']);
      }
    } finally {
      // No leader was chosen while Redis was away (a leader needs the lease in Redis).
      expect(replicas.map((r) => count(r, 'this replica is now the sync leader'))).toEqual(leadersBefore);
      await redis.start();
    }
    for (const url of urls) {
      await until(
        () => call(url, '/readyz', '').then((r) => r.json()),
        (b) => b.notes === undefined,
      );
      expect((await call(url, '/api/zip/90210')).status).toBe(200);
      expect((await call(url, '/api/zip/90210', 'szg_never_seen_here')).status).toBe(401);
    }
    for (const r of replicas) {
      // Said once when it went and once when it was back, however many reconnections failed between.
      expect(count(r, 'redis unreachable: local limits and local data until it is back')).toBe(1);
      expect(count(r, '"msg":"redis connected"')).toBe(2);
    }
  }, 60_000);
});

/** A page of 1,000 ZIPs of each: a query that costs over 20,000. */
const EIGHT_STATES = ['CA', 'TX', 'NY', 'PA', 'IL', 'OH', 'FL', 'MI'];

describe.skipIf(!haveRedis)('cost budgets with replicas', () => {
  afterEach(stopReplicas);

  it('a heavy client gets one cost budget for the cluster, not one per replica', async () => {
    // A budget of 12 requests/s x 100 units x 100 s = 120,000 units, shared through Redis. Its
    // window is longer than this test may run (90 s), so how fast the machine is cannot move the
    // count: the window never turns within it. Each request costs over 20,000, so the few sent
    // stay under the key's 12 a second: nothing is refused for the rate, nothing waits.
    const urls = await startReplicas(2, { COST_UNITS_PER_REQUEST: '100', COST_WINDOW_SECONDS: '100' });
    const key = (await keys('create', '--name', 'heavy', '--rate', '12')).match(/szg_[\w-]+/)![0];
    const heavy = JSON.stringify({
      query: `{ ${EIGHT_STATES.map((s) => `${s}: state(code: "${s}") { zipcodes(limit: 1000) { zip city county lat lng } }`).join(' ')} }`,
    });
    const ask = (url: string) => call(url, '/graphql', key, { method: 'POST', headers: { 'content-type': 'application/json' }, body: heavy });
    let accepted = 0;
    let cost = 0;
    const refusedBy = new Set<string>();
    // Alternate replicas until both refuse for cost.
    for (let i = 0; refusedBy.size < 2 && i < 200; i++) {
      const url = urls[i % 2]!;
      const r = await ask(url);
      const body = await r.json();
      if (r.status === 200) {
        accepted++;
        cost = body.extensions.cost.requestedQueryCost;
      } else {
        expect(r.status).toBe(429);
        expect(body.errors?.[0]?.message).toMatch(/^This request costs/);
        refusedBy.add(url);
      }
    }
    expect(cost).toBeGreaterThan(20_000);
    // Every answer drew from the one budget: as many as fit in it once, then both replicas refuse.
    expect(accepted).toBe(Math.floor(120_000 / cost));
    expect(refusedBy.size).toBe(2);
  }, 90_000);

  it('Redis frozen (it holds its connections and answers nothing): a key seen before is answered, after one wait of at most a second; Redis back, what was answered meanwhile is counted there', async () => {
    const [url] = await startReplicas(1);
    const key = (await keys('create', '--name', 'frozen', '--rate', '1000')).match(/szg_[\w-]+/)![0];
    expect((await call(url!, '/api/zip/05401', key)).status).toBe(200);
    const id = await redisCli('HGET', `szg:key:${createHash('sha256').update(key).digest('hex')}`, 'id');
    const count = async () => Number(await redisCli('GET', `szg:usage:${id}:${isoDate(runNow()).slice(0, 7)}`));
    const beforeFreeze = await count();
    redis.pause();
    try {
      // Ten at once, sent to Redis before anything is known: all answered when the first times out.
      const burst = await Promise.all(Array.from({ length: 10 }, () => call(url!, '/api/zip/05401', key).then((r) => r.status)));
      expect(burst).toEqual(Array(10).fill(200));
      const waits: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        expect((await call(url!, '/api/zip/05401', key)).status).toBe(200);
        waits.push(performance.now() - t0);
      }
      // The first request waits out the command's time-out (1 s); the connection is then made
      // again, and until Redis answers, requests do not wait for it.
      expect(waits.filter((ms) => ms > 500).length).toBeLessThanOrEqual(1);
      expect(replicas[0]!.output()).toContain('redis stopped answering');
    } finally {
      redis.resume();
    }
    await until(
      async () => (await call(url!, '/readyz')).json(),
      (body) => !body.notes,
    );
    // One more request, and the 30 answered while Redis was frozen are added to its count there.
    // The ten sent to Redis before it was found frozen may count twice (Redis runs what it was
    // sent when it wakes), never three times: an unanswered command is not sent again.
    expect((await call(url!, '/api/zip/05401', key)).status).toBe(200);
    const after = await until(count, (n) => n >= beforeFreeze + 31);
    expect(after).toBeLessThanOrEqual(beforeFreeze + 41);
    expect(replicas[0]!.output()).toContain('requests answered while redis was away added to their keys in redis');
  });

  it('a replica stopped while Redis is away keeps what it answered meanwhile, and adds it to Redis after its next start', async () => {
    const db = privateDatabase('gateway-replica-', { weather: true, resorts: SYNC_RESORTS });
    const [url] = await startReplicas(1, {}, { dbs: [db] });
    const key = (await keys('create', '--name', 'across-a-restart')).match(/szg_[\w-]+/)![0];
    expect((await call(url!, '/api/zip/05401', key)).status).toBe(200);
    const id = await redisCli('HGET', `szg:key:${createHash('sha256').update(key).digest('hex')}`, 'id');
    const count = async () => Number(await redisCli('GET', `szg:usage:${id}:${isoDate(runNow()).slice(0, 7)}`));
    const before = await count();
    const first = replicas[0]!;
    await redis.stop();
    try {
      for (let i = 0; i < 5; i++) expect((await call(url!, '/api/zip/05401', key)).status).toBe(200);
      first.child.kill('SIGTERM');
      await first.exited;
      expect(first.output()).toContain('requests answered while redis was away are kept in the database');
      // A start killed before Redis is back loses none of them.
      await startReplicas(1, {}, { dbs: [db] });
      replicas[1]!.child.kill('SIGKILL');
      await replicas[1]!.exited;
    } finally {
      await redis.start();
    }
    // Added as soon as the replica is connected again, before any request.
    await startReplicas(1, {}, { dbs: [db] });
    await until(
      async () => replicas[2]!.output(),
      (out) => out.includes('requests answered while redis was away added to their keys in redis'),
    );
    expect(await count()).toBe(before + 5);
  });

  it('a replica started while Redis is away serves (readiness, and 503 for the keys it cannot check); Redis back, it works without a restart', async () => {
    await redis.stop();
    let url: string;
    try {
      [url] = (await startReplicas(1)) as [string];
      // Ready once warm, as any replica: nothing waits for Redis.
      const ready = await until(
        async () => {
          const r = await call(url, '/readyz', '');
          return { status: r.status, body: await r.json() };
        },
        (r) => r.status === 200,
      );
      expect(ready.body.notes).toEqual(['redis unreachable: local limits and local data until it is back']);
      const refused = await call(url, '/api/zip/05401');
      expect([refused.status, (await refused.json()).code]).toEqual([503, 'KEY_STORE_UNAVAILABLE']);
    } finally {
      await redis.start();
    }
    await until(
      async () => (await call(url, '/api/zip/05401')).status,
      (status) => status === 200,
    );
  });

  it("a replica serves its own API_ADMIN_KEYS key while Redis is away, before the key's first request there", async () => {
    const [url] = await startReplicas(1);
    await redis.stop();
    try {
      expect((await call(url!, '/api/stats')).status).toBe(200);
      expect((await call(url!, '/api/stats', 'szg_never_seen_here')).status).toBe(503);
    } finally {
      await redis.start();
    }
  });

  it('Redis back without its data: requests answered meanwhile are not charged to a new key that got the same id', async () => {
    const [url] = await startReplicas(1);
    const ids = () => redisCli('HLEN', 'szg:key-ids');
    // The replica's environment key first, then this one.
    await until(ids, (n) => n === '1');
    const old = (await keys('create', '--name', 'before-the-loss')).match(/szg_[\w-]+/)![0];
    const idOf = (key: string) => redisCli('HGET', `szg:key:${createHash('sha256').update(key).digest('hex')}`, 'id');
    const oldId = await idOf(old);
    expect((await call(url!, '/api/zip/05401', old)).status).toBe(200);
    await redis.stop();
    try {
      for (let i = 0; i < 5; i++) expect((await call(url!, '/api/zip/05401', old)).status).toBe(200);
      redis.wipe();
    } finally {
      await redis.start();
    }
    // The replica names its environment key again (id 1 anew); the next key gets the lost key's id.
    await until(ids, (n) => n === '1');
    const fresh = (await keys('create', '--name', 'after-the-loss')).match(/szg_[\w-]+/)![0];
    expect(await idOf(fresh)).toBe(oldId);
    // A check Redis answers: the five answered while it was away are offered to it, and refused.
    expect((await call(url!, '/api/zip/05401')).status).toBe(200);
    await until(
      async () => replicas[0]!.output(),
      (out) => out.includes('redis no longer has this key'),
    );
    expect((await call(url!, '/api/zip/05401', fresh)).status).toBe(200);
    expect(await redisCli('GET', `szg:usage:${oldId}:${isoDate(runNow()).slice(0, 7)}`)).toBe('1');
    expect((await call(url!, '/api/zip/05401', old)).status).toBe(401);
  });

  it('with Redis away, each replica keeps a budget of its own in memory: the cluster then allows one budget per replica', async () => {
    const urls = await startReplicas(2, { COST_UNITS_PER_REQUEST: '100', COST_WINDOW_SECONDS: '100' });
    const key = (await keys('create', '--name', 'heavy-alone', '--rate', '12')).match(/szg_[\w-]+/)![0];
    const heavy = JSON.stringify({
      query: `{ ${EIGHT_STATES.map((s) => `${s}: state(code: "${s}") { zipcodes(limit: 1000) { zip city county lat lng } }`).join(' ')} }`,
    });
    // Each replica has seen the key (a key check needs Redis the first time) before Redis goes.
    for (const url of urls) expect((await call(url, '/api/stats', key)).status).toBe(200);
    await redis.stop();
    try {
      let cost = 0;
      const accepted = [0, 0];
      for (const [i, url] of urls.entries()) {
        // Until this replica refuses for cost.
        for (let n = 0; n < 100; n++) {
          const r = await call(url, '/graphql', key, { method: 'POST', headers: { 'content-type': 'application/json' }, body: heavy });
          const body = await r.json();
          if (r.status === 200) {
            accepted[i]!++;
            cost = body.extensions.cost.requestedQueryCost;
            continue;
          }
          expect(r.status).toBe(429);
          expect(body.errors?.[0]?.message).toMatch(/^This request costs/);
          break;
        }
      }
      // 12 requests/s x 100 units x 100 s = 120,000 units on each replica, counted apart.
      expect(cost).toBeGreaterThan(20_000);
      expect(accepted).toEqual([Math.floor(120_000 / cost), Math.floor(120_000 / cost)]);
    } finally {
      await redis.start();
    }
  }, 90_000);
});

/** A key of the environment as the servers name it (env- and the start of its SHA-256). */
const envKeyName = (key: string) => `env-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
const redisCli = async (...args: string[]) => (await run('redis-cli', [...redis.cliArgs, ...args])).stdout.trim();
const status = async (url: string, key: string) => (await call(url, '/api/stats', key)).status;

/** API_KEYS are each replica's own configuration: a key lives while a live replica names it. */
describe.skipIf(!haveRedis)('keys from the environment across replicas', () => {
  afterEach(stopReplicas);
  const OWN = 'szg_env_key_only_replica_a_names';

  it('a replica started without a key another live replica names leaves it alone; the key is retired by the first start after no live replica names it', async () => {
    const [a] = await startReplicas(1, { REPLICA_ID: 'a', API_KEYS: OWN });
    expect(await status(a!, OWN)).toBe(200);
    const [b] = (await startReplicas(1, { REPLICA_ID: 'b' })).slice(-1);
    // B names no such key, but A lives and names it: it answers on both.
    expect(await status(a!, OWN)).toBe(200);
    expect(await status(b!, OWN)).toBe(200);
    expect(replicas[1]!.output()).not.toMatch(/retired/);
    // A killed, and its lease run out (Redis is told, rather than the test waiting its 6 s): the next start retires the key.
    replicas[0]!.child.kill('SIGKILL');
    await replicas[0]!.exited;
    expect(await redisCli('PEXPIRE', 'szg:env-lease:a', '1')).toBe('1');
    const [c] = (await startReplicas(1, { REPLICA_ID: 'c' })).slice(-1);
    expect(replicas[2]!.output()).toMatch(/1 key from an earlier API_KEYS or API_ADMIN_KEYS retired: no server's environment names it any more/);
    for (const url of [b!, c!]) expect(await status(url, OWN)).toBe(401);
    expect(await keys('list')).toMatch(new RegExp(`${envKeyName(OWN)} .* retired \\S+ \\(no server's environment named it\\)`));
    // Named again by a replica that starts with it: active again.
    const [d] = (await startReplicas(1, { REPLICA_ID: 'd', API_KEYS: OWN })).slice(-1);
    for (const url of [b!, d!]) expect(await status(url, OWN)).toBe(200);
    // A replica that shuts down ends its lease at once.
    replicas[3]!.child.kill('SIGTERM');
    await replicas[3]!.exited;
    expect(await redisCli('EXISTS', 'szg:env-lease:d')).toBe('0');
  }, 90_000);

  it('a replica whose lease ran out while it stalled names its keys again at its next renewal', async () => {
    const [a] = await startReplicas(1, { REPLICA_ID: 'a', API_KEYS: OWN });
    const [b] = (await startReplicas(1, { REPLICA_ID: 'b' })).slice(-1);
    // A stalls (a long pause, a frozen VM) past its lease; a start meanwhile retires the key.
    replicas[0]!.child.kill('SIGSTOP');
    try {
      expect(await redisCli('PEXPIRE', 'szg:env-lease:a', '1')).toBe('1');
      const [c] = (await startReplicas(1, { REPLICA_ID: 'c' })).slice(-1);
      expect(await status(c!, OWN)).toBe(401);
    } finally {
      replicas[0]!.child.kill('SIGCONT');
    }
    // Within one renewal (every 2 s) A finds its lease gone and names its keys again.
    await until(
      () => status(b!, OWN),
      (s) => s === 200,
    );
    expect(await status(a!, OWN)).toBe(200);
    expect(replicas[0]!.output()).toContain("this replica's lease on its API_KEYS had run out: the keys are registered again");
  }, 90_000);

  it('keys revoke of a key of API_KEYS sticks: a replica restarted with it keeps it revoked, and its log says to remove it from the environment', async () => {
    const [a] = await startReplicas(1, { REPLICA_ID: 'a', API_KEYS: OWN });
    expect(await status(a!, OWN)).toBe(200);
    const revoked = await keys('revoke', envKeyName(OWN));
    expect(revoked).toMatch(
      new RegExp(
        `^revoked key "${envKeyName(OWN)}" \\(id \\d+\\)\\n  it comes from API_KEYS or API_ADMIN_KEYS: it stays revoked; remove it from there too\\n$`,
      ),
    );
    expect(await status(a!, OWN)).toBe(401);
    replicas[0]!.child.kill('SIGTERM');
    await replicas[0]!.exited;
    const [again] = (await startReplicas(1, { REPLICA_ID: 'a', API_KEYS: OWN })).slice(-1);
    expect(await status(again!, OWN)).toBe(401);
    expect(replicas[1]!.output()).toMatch(
      new RegExp(
        `API_KEYS or API_ADMIN_KEYS names key \\\\"${envKeyName(OWN)}\\\\" \\(id \\d+\\), revoked with npm run keys: it stays revoked; remove it from the environment`,
      ),
    );
  }, 90_000);
});
