import { describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient as createWsClient } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import { Redis } from 'ioredis';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.js';
import { spawnServer, type ServerProcess, watchReplicas } from './helpers/process.js';
import { haveRedis, startRedis, type TestRedis } from './helpers/redis.js';
import { privateDatabase } from './helpers/server.js';
import { runNow } from './helpers/clock.js';
import { resultQueue, type ResultStream } from './helpers/live.js';
import { isoDate } from '../src/domain/dates.js';
import { decodeWindow, encodeWindow } from '../src/cluster/window-codec.js';
import { until } from './helpers/wait.js';
import { connectMcp, disconnectMcp } from './helpers/mcp.js';

/**
 * Live conditions across replicas: two server processes, each with its own SQLite file, sharing a
 * real Redis; a run on one, subscribers on the other, through clients nobody here wrote —
 * graphql-sse (SSE), Apollo Client's HttpLink (multipart/mixed) and its GraphQLWsLink
 * (graphql-ws). Replicas and the fake provider run on the run's clock.
 */

const ADMIN = 'szg_live_replica_admin_key';
const SUBSCRIPTION = `subscription Live($ids: [ID!]!) {
  conditionsChanged(resortIds: $ids) { resortId reason syncedAt conditions { id source snowDepthBase } }
}`;
const IDS = ['vail', 'steamboat'];
/**
 * The replicas' resorts: those subscribed to here, and Alta, which the MCP test lets go of before a
 * run that changes it. More would only make each run longer: beside CPU hogs and the rest of the
 * suite, a leader once missed its lease's renewals mid-run and lost the run to the other replica.
 */
const CLUSTER_RESORTS = [...IDS, 'alta'];

/** Two replicas of the test's own, sharing a Redis of their own, pulling from a fake provider of their own. */
interface Cluster {
  redis: TestRedis;
  fake: FakeUpstream;
  replicas: ServerProcess[];
  urls: string[];
}

/**
 * A cluster for one test (nothing another test ran, stored or published is seen here), stopped
 * when the test ends; on failure the replicas' log is printed.
 */
async function startCluster(): Promise<Cluster> {
  const redis = await startRedis();
  onTestFinished(() => redis.stop());
  const fake = await startFakeUpstream({ today: isoDate(runNow()) });
  onTestFinished(() => fake.close());
  const replicas = [0, 1].map((i) =>
    spawnServer(privateDatabase('gateway-live-replica-', { resorts: CLUSTER_RESORTS }), {
      REDIS_URL: redis.url,
      REPLICA_ID: `live-${i}`,
      API_ADMIN_KEYS: ADMIN,
      API_KEYS_RATE: '1000',
      STREAMS_PER_KEY: '20',
      // Live conditions never look for changes by themselves here: an update comes only because its replica was told it applied a window.
      LIVE_CHECK_MS: '3600000',
      PROVIDER: 'open-meteo',
      OPEN_METEO_FORECAST_URL: `${fake.url}/v1/forecast`,
      OPEN_METEO_ARCHIVE_URL: `${fake.url}/v1/archive`,
      UPSTREAM_CONCURRENCY: '8',
      UPSTREAM_TIMEOUT_MS: '60000',
    }),
  );
  watchReplicas(replicas, /leader|window|sync run/, { onTestFinished, onTestFailed });
  const urls = await Promise.all(replicas.map((r) => r.url));
  return { redis, fake, replicas, urls };
}

const call = (url: string, p: string, init: RequestInit = {}) => fetch(url + p, { ...init, headers: { 'x-api-key': ADMIN, ...init.headers } });

/** Which replica leads sync (it runs every run), and the other. */
async function roles({ replicas }: Cluster): Promise<{ leader: number; follower: number }> {
  const leader = await until(
    async () => replicas.findIndex((r) => r.output().includes('this replica is now the sync leader')),
    (i) => i >= 0,
  );
  return { leader, follower: 1 - leader };
}

/** Whether a replica applied (or published) a run's window, by its own log. */
function hasWindow(replica: ServerProcess, runId: number): boolean {
  return replica
    .output()
    .split('\n')
    .some((line) => line.includes(`"syncRun":${runId}`) && /applied the window another replica published|sync run published/.test(line));
}

interface RunRecord {
  id: number;
  status: string;
  startedAt: string;
  finishedAt: string;
}

/** Starts a run on a replica and waits until it shows it finished; its record. */
async function runOn(url: string): Promise<RunRecord> {
  const before = ((await (await call(url, '/api/sync/status')).json()) as { lastRun: { id: number } | null }).lastRun?.id ?? 0;
  expect((await call(url, '/api/sync/run', { method: 'POST' })).status).toBe(200);
  const done = await until(
    async () => (await (await call(url, '/api/sync/status')).json()) as { state: string; lastRun: RunRecord | null },
    (s) => s.state === 'IDLE' && (s.lastRun?.id ?? 0) > before,
  );
  expect(done.lastRun!.status).toBe('SUCCEEDED');
  return done.lastRun!;
}

/** graphql-sse's client (distinct connections mode: one SSE request per subscription). */
function sseClient(url: string): ResultStream {
  const client = createSseClient({ url: `${url}/graphql`, headers: { 'x-api-key': ADMIN }, retryAttempts: 0 });
  let stop = () => {};
  const queue = resultQueue<any>(() => {
    stop();
    client.dispose();
  });
  stop = client.subscribe(
    { query: SUBSCRIPTION, variables: { ids: IDS } },
    { next: (r) => queue.push(r), error: (e) => queue.fail(new Error(String(e))), complete: () => queue.fail(new Error('completed')) },
  );
  return queue;
}

/** Apollo Client over a link: HttpLink reads subscriptions as multipart/mixed, GraphQLWsLink over graphql-ws. */
function apolloClient(url: string, transport: 'multipart' | 'ws'): ResultStream {
  const link =
    transport === 'ws'
      ? new GraphQLWsLink(
          createWsClient({
            url: `${url.replace(/^http/, 'ws')}/graphql`,
            webSocketImpl: WebSocket,
            connectionParams: { 'x-api-key': ADMIN },
            retryAttempts: 0,
          }),
        )
      : new HttpLink({ uri: `${url}/graphql`, headers: { 'x-api-key': ADMIN } });
  const client = new ApolloClient({ link, cache: new InMemoryCache() });
  let subscription: { unsubscribe(): void } | null = null;
  const queue = resultQueue<any>(() => {
    subscription?.unsubscribe();
    client.stop();
  });
  subscription = client.subscribe({ query: gql(SUBSCRIPTION), variables: { ids: IDS } }).subscribe({
    next: (r) => queue.push(r),
    error: (e) => queue.fail(e as Error),
    complete: () => queue.fail(new Error('completed')),
  });
  return queue;
}

const updatesOf = (results: any[]) =>
  results.map((r) => {
    expect(r.errors).toBeUndefined();
    const { __typename: _t, conditions, ...rest } = r.data.conditionsChanged;
    const { __typename: _c, ...c } = conditions;
    return { ...rest, conditions: c };
  });

describe.skipIf(!haveRedis)('live conditions across two replicas sharing one Redis', () => {
  it('subscribers on one replica get INITIAL at once, then SYNC with the data of a run of the other once their replica applies its window, over SSE, multipart and WebSocket', async () => {
    const cluster = await startCluster();
    const { replicas, urls } = cluster;
    const { leader, follower } = await roles(cluster);
    const clients: Record<string, ResultStream> = {
      'graphql-sse': sseClient(urls[follower]!),
      'Apollo HttpLink (multipart)': apolloClient(urls[follower]!, 'multipart'),
      'Apollo GraphQLWsLink': apolloClient(urls[follower]!, 'ws'),
    };
    /** Each client's next two updates, the same on every client. */
    const next = async () => {
      const seen = await Promise.all(Object.values(clients).map(async (c) => updatesOf(await c.take(2))));
      for (const s of seen) expect(s).toEqual(seen[0]);
      return seen[0]!;
    };
    /** Updates of a run: SYNC for both, with data fetched while it ran (the leader's clock, both times). */
    const expectRun = (updates: ReturnType<typeof updatesOf>, run: RunRecord) => {
      expect(updates.map((u) => [u.resortId, u.reason, u.conditions.source])).toEqual([
        ['vail', 'SYNC', 'open-meteo'],
        ['steamboat', 'SYNC', 'open-meteo'],
      ]);
      for (const u of updates) {
        expect(Date.parse(u.syncedAt)).toBeGreaterThanOrEqual(Date.parse(run.startedAt));
        expect(Date.parse(u.syncedAt)).toBeLessThanOrEqual(Date.parse(run.finishedAt));
      }
    };
    try {
      const initial = await next();
      expect(initial.map((u) => [u.resortId, u.reason])).toEqual([
        ['vail', 'INITIAL'],
        ['steamboat', 'INITIAL'],
      ]);

      const run = await runOn(urls[leader]!);
      const synced = await next();
      expectRun(synced, run);
      for (const [i, u] of synced.entries()) expect(Date.parse(u.syncedAt)).toBeGreaterThan(Date.parse(initial[i]!.syncedAt));
      // The follower applied the leader's window (it fetched nothing itself).
      await until(
        async () => hasWindow(replicas[follower]!, run.id),
        (applied) => applied,
      );
      expect(replicas[follower]!.output()).not.toContain('"msg":"sync run started"');

      // Nothing more was sent for that run: each client's next updates are the next run's.
      const again = await runOn(urls[leader]!);
      expectRun(await next(), again);
    } finally {
      for (const c of Object.values(clients)) c.close();
    }
  });

  it('a replica that missed the announcement of a window catches up at its next tick and tells its subscribers what changed, and only that', async () => {
    const cluster = await startCluster();
    const { redis, replicas, urls } = cluster;
    const { leader, follower } = await roles(cluster);
    // A window of this test's own in Redis: a run, applied on the follower before it has subscribers.
    const run = await runOn(urls[leader]!);
    await until(
      async () => hasWindow(replicas[follower]!, run.id),
      (applied) => applied,
    );
    const stream = sseClient(urls[follower]!);
    const cmd = new Redis(redis.url.replace(/^unix:\/\//, ''), { lazyConnect: false });
    try {
      const [vail, steamboat] = updatesOf(await stream.take(2));
      // The newest window again, with Vail fetched anew (a later syncedAt) and nothing else
      // changed, stored under a newer version with no announcement, as if every replica's
      // subscriber connection had been away when it was published.
      const version = Number(await cmd.get('szg:sync:window-version'));
      expect(version).toBe(run.id);
      const window = await decodeWindow((await cmd.getBuffer('szg:sync:window'))!);
      const syncedAt = window.fields.indexOf('syncedAt');
      const resortId = window.fields.indexOf('resortId');
      const later = new Date(Date.parse(vail!.syncedAt) + 60_000).toISOString();
      for (const row of window.days) if (row[resortId] === 'vail') row[syncedAt] = later;
      await cmd.set('szg:sync:window', await encodeWindow(window));
      await cmd.set('szg:sync:window-version', String(version + 1));

      const [update] = updatesOf(await stream.take(1));
      expect(update).toEqual({ ...vail, reason: 'SYNC', syncedAt: later });
      // Steamboat's report did not change: nothing for it. Had anything been sent for it, it would
      // come before the next run's updates. (The run starts once every replica has the stored
      // version: a run numbers itself after the newest window it knows, and one numbered as the
      // version set above would not be shared over it.)
      await until(
        async () => replicas.map((r) => hasWindow(r, version + 1)),
        (xs) => xs.every(Boolean),
      );
      await runOn(urls[follower]!);
      expect(updatesOf(await stream.take(2)).map((u) => [u.resortId, u.reason])).toEqual([
        ['vail', 'SYNC'],
        ['steamboat', 'SYNC'],
      ]);
      expect(steamboat!.resortId).toBe('steamboat');
    } finally {
      stream.close();
      cmd.disconnect();
    }
  });

  it('an MCP session on one replica is told its subscribed resources changed by a run started on the other, and only those (official SDK client)', async () => {
    const cluster = await startCluster();
    const { urls } = cluster;
    const { leader, follower } = await roles(cluster);
    const mcp = await connectMcp(urls[follower]!, ADMIN);
    const { client } = mcp;
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    try {
      const watched = ['resort://vail/conditions', 'resort://vail/weather', 'resort://steamboat/conditions'];
      for (const uri of watched) await client.subscribeResource({ uri });
      // Subscribed and then let go: nothing comes for it.
      await client.subscribeResource({ uri: 'resort://alta/conditions' });
      await client.unsubscribeResource({ uri: 'resort://alta/conditions' });
      expect(updated).toEqual([]);

      await runOn(urls[leader]!);
      await until(
        async () => [...updated].sort(),
        (uris) => uris.length >= watched.length,
      );
      expect([...updated].sort()).toEqual([...watched].sort());
      // What the update announced reads on the follower (the leader's window applied there).
      const read = await client.readResource({ uri: 'resort://vail/conditions' });
      expect(JSON.parse((read.contents[0] as { text: string }).text).conditions.source).toBe('open-meteo');
    } finally {
      await disconnectMcp(mcp);
    }
  });
});
