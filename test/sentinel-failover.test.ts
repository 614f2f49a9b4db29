import { describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { isoDate } from '../src/domain/dates.js';
import { runNow } from './helpers/clock.js';
import { startFakeUpstream } from './helpers/fake-upstream.js';
import { cliCommand, runCommand, spawnServer, type ServerProcess, watchReplicas } from './helpers/process.js';
import { haveRedis, startSentinels } from './helpers/redis.js';
import { privateDatabase, SYNC_RESORTS } from './helpers/server.js';
import { readEvents, until } from './helpers/wait.js';

/**
 * Redis through Sentinel (a primary, its replica, three Sentinels: real redis-server processes)
 * under two replicas of the bundle, and the primary killed under steady requests: the replicas
 * and the keys command follow the Sentinels to the new primary, and nothing a client sees fails.
 */

const ADMIN = 'szg_sentinel_admin_key';
const N = SYNC_RESORTS.length;

/** Sentinels, a fake provider and two replicas of the bundle through them; all stopped after the test. */
async function startCluster() {
  const sentinels = await startSentinels();
  onTestFinished(() => sentinels.stop());
  const fake = await startFakeUpstream({ today: isoDate(runNow()) });
  onTestFinished(() => fake.close());
  const replicas: ServerProcess[] = [0, 1].map((i) =>
    spawnServer(privateDatabase('gateway-sentinel-replica-', { resorts: SYNC_RESORTS }), {
      ...sentinels.env,
      REPLICA_ID: `sentinel-${i}`,
      API_ADMIN_KEYS: ADMIN,
      API_KEYS_RATE: '1000',
      PROVIDER: 'open-meteo',
      OPEN_METEO_FORECAST_URL: `${fake.url}/v1/forecast`,
      OPEN_METEO_ARCHIVE_URL: `${fake.url}/v1/archive`,
      UPSTREAM_TIMEOUT_MS: '60000',
    }),
  );
  watchReplicas(replicas, /redis|leader|sync run/, { onTestFinished, onTestFailed });
  const urls = await Promise.all(replicas.map((r) => r.url));
  const dbPath = privateDatabase('gateway-sentinel-cli-');
  const keys = (...args: string[]) => runCommand(dbPath, cliCommand('keys', ...args), sentinels.env);
  const get = (url: string, key: string) => fetch(`${url}/api/zip/05401`, { headers: { 'x-api-key': key } }).then((r) => r.status);
  const post = (url: string, p: string) => fetch(url + p, { method: 'POST', headers: { 'x-api-key': ADMIN } });
  const runsStarted = () => replicas.map((r) => r.output().split('sync run started').length - 1);

  return { sentinels, fake, replicas, urls, keys, get, post, runsStarted };
}

describe.skipIf(!haveRedis)('Redis through Sentinel', () => {
  it('the primary killed under steady requests: none fails, a run asked on both replicas runs once, a subscriber hears it, keys made and revoked after hold on both', async () => {
    const { sentinels, fake, urls, keys, get, post, runsStarted } = await startCluster();
    // A key made through the Sentinels, seen by both replicas before the fault.
    const made = await keys('create', '--name', 'before-failover', '--rate', '100000');
    expect(made.status, made.stderr).toBe(0);
    const before = made.stdout.match(/szg_[\w-]+/)![0];
    expect(await Promise.all(urls.map((u) => get(u, before)))).toEqual([200, 200]);

    // A sync subscriber on the second replica, from before the fault to the end of the run after it.
    const controller = new AbortController();
    onTestFinished(() => controller.abort());
    const subscribed = await fetch(`${urls[1]}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': ADMIN },
      body: JSON.stringify({ query: 'subscription { syncProgress { state lastRun { id } } }' }),
      signal: controller.signal,
    });
    expect(subscribed.status).toBe(200);
    const idleBefore = await until(
      () => fetch(`${urls[0]}/api/sync/status`, { headers: { 'x-api-key': ADMIN } }).then((r) => r.json()),
      (s) => s.state === 'IDLE',
    );

    // Steady requests on both replicas from here to the end.
    const load = steadyRequests(urls, before, get);

    const primary = await sentinels.primaryPort();
    sentinels.kill(primary);
    const promoted = await until(
      () => sentinels.primaryPort(),
      (port) => port !== primary,
      30_000,
      100,
    );
    expect(sentinels.ports.nodes).toContain(promoted);

    // Right after the promotion (the replicas may still be finding the new primary), a run is asked
    // on both; the provider holds its answers until both are answered, so the run is still going.
    const startedBefore = runsStarted();
    const release = fake.hold();
    const asked = await Promise.all(urls.map((u) => post(u, '/api/sync/run')));
    release();
    expect(await Promise.all(asked.map(async (r) => `${r.status} ${r.status === 200 ? '' : await r.text()}`))).toEqual(['200 ', '200 ']);
    const events = readEvents<{ state: string; lastRun: { id: number } | null }>(subscribed, 'syncProgress', (xs) =>
      xs.some((e) => e.state === 'IDLE' && (e.lastRun?.id ?? 0) > (idleBefore.lastRun?.id ?? 0)),
    );
    const timer = setTimeout(() => controller.abort(new Error('the subscriber heard no end of the run in 30 s')), 30_000);
    const heard = await events.finally(() => clearTimeout(timer));
    expect(heard.some((e) => e.state === 'RUNNING')).toBe(true);
    // One run cluster-wide: one start in the two logs, one run's worth of provider calls.
    const started = runsStarted().map((n, i) => n - startedBefore[i]!);
    expect(started.reduce((a, b) => a + b)).toBe(1);
    expect(fake.requests.filter((r) => r.startsWith('/v1/forecast')).length).toBe(N);
    for (const url of urls) {
      const history = await fetch(`${url}/api/sync/history`, { headers: { 'x-api-key': ADMIN } }).then((r) => r.json());
      expect(history.runs[0]).toMatchObject({ status: 'SUCCEEDED', trigger: 'MANUAL', resortsUpdated: N });
      expect(history.runs[1]?.id ?? 0).toBe(idleBefore.lastRun?.id ?? 0);
    }

    // A key made after the failover (the command finds the new primary) works on both replicas at
    // once; revoked, both refuse it at once (each request asks Redis).
    const after = await keys('create', '--name', 'after-failover');
    expect(after.status, after.stderr).toBe(0);
    const fresh = after.stdout.match(/szg_[\w-]+/)![0];
    expect(await Promise.all(urls.map((u) => get(u, fresh)))).toEqual([200, 200]);
    expect((await keys('revoke', 'after-failover')).status).toBe(0);
    expect(await Promise.all(urls.map((u) => get(u, fresh)))).toEqual([401, 401]);

    // Every request of the key both replicas had seen was answered, through the whole failover.
    const statuses = await load.stop();
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('a failover by hand (the old primary lives on, demoted): the replicas move to the new primary and none of the steady requests fails', async () => {
    const { sentinels, urls, keys, get } = await startCluster();
    const made = await keys('create', '--name', 'before-failover', '--rate', '100000');
    expect(made.status, made.stderr).toBe(0);
    const before = made.stdout.match(/szg_[\w-]+/)![0];
    const load = steadyRequests(urls, before, get);
    const primary = await sentinels.primaryPort();
    await sentinels.failover();
    await until(
      () => sentinels.primaryPort(),
      (port) => port !== primary,
      30_000,
      100,
    );
    // A key made on the new primary works on both replicas: neither is left on the old one, whose
    // copy refuses the counting writes (a key not seen before would then be 503).
    const after = await keys('create', '--name', 'after-failover');
    expect(after.status, after.stderr).toBe(0);
    const fresh = after.stdout.match(/szg_[\w-]+/)![0];
    await until(
      () => Promise.all(urls.map((u) => get(u, fresh))),
      (s) => s.every((x) => x === 200),
      1000,
    );
    const statuses = await load.stop();
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});

/** Requests with one key on every replica, one round after another, until stopped: their statuses. */
function steadyRequests(urls: string[], key: string, get: (url: string, key: string) => Promise<number>) {
  const statuses: number[] = [];
  let steady = true;
  onTestFinished(() => {
    steady = false;
  });
  const load = (async () => {
    while (steady) {
      // A request that fails outright counts as 0 (and so as a failure).
      statuses.push(...(await Promise.all(urls.map((u) => get(u, key).catch(() => 0)))));
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    stop: async () => {
      steady = false;
      await load;
      return statuses;
    },
  };
}
