import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { loadConfig } from '../src/lib/config.js';
import { getJson, privateDatabase, startTestServer, SYNC_RESORTS, TEST_KEY, type TestServerOptions } from './helpers/server.js';
import { startFakeUpstream } from './helpers/fake-upstream.js';
import { httpSubscription, wsSubscription, type ResultStream } from './helpers/live.js';
import { TRANSPORTS } from './helpers/transports.js';
import { until } from './helpers/wait.js';
import { movableClock } from './helpers/clock.js';

/**
 * Live conditions (Subscription.conditionsChanged) on one server: the first report, then one per
 * change — a sync run (SYNC), the hour turning (HOUR, on the server's injected clock), lift
 * status alone (LIFTS) — the same on SSE, multipart and WebSocket, and nothing when nothing
 * changed. The server pulls from a local Open-Meteo and Liftie (test/helpers/fake-upstream.ts).
 */

const today = '2027-01-15';

const SUBSCRIPTION = `subscription Live($ids: [ID!]!, $units: Units) {
  conditionsChanged(resortIds: $ids, units: $units) { resortId reason syncedAt conditions { id updatedAt source openLifts totalLifts snowDepthBase newSnow24h } }
}`;
/** Steamboat has live lift status (data/liftie-ids.json); Zermatt does not. Both are north of the equator. */
const IDS = ['steamboat', 'zermatt'];

/**
 * A server of the test's own, its own fake providers and its own clock (a winter noon, moved by
 * the test, never by waiting), after one sync run: no test sees another's runs, hours or lifts.
 */
async function liveServer() {
  const clock = movableClock(`${today}T12:00:00Z`);
  const fake = await startFakeUpstream({ today });
  onTestFinished(() => fake.close());
  const config: TestServerOptions['config'] = {
    provider: 'open-meteo',
    openMeteo: { forecast: `${fake.url}/v1/forecast`, archive: `${fake.url}/v1/archive` },
    upstream: { timeoutMs: 60_000, retries: 0, concurrency: 8, backoffMs: 5, resetTimeoutMs: 60_000, maxBytes: 8_000_000 },
    liftie: { enabled: true, url: `${fake.url}/liftie` },
    streams: { perKey: 50, total: 200, maxLifetimeMs: 3_600_000 },
  };
  const app = await startTestServer({ dbPath: privateDatabase('gateway-live-', { weather: false, resorts: SYNC_RESORTS }), now: clock.now, config });
  onTestFinished(() => app.close());
  /** Starts a sync run and waits until it has finished; answers its status. */
  const syncRun = async (): Promise<string> => {
    const before = (await getJson(app, '/api/sync/status')).body.lastRun?.id ?? 0;
    expect((await getJson(app, '/api/sync/run', { method: 'POST' })).status).toBe(200);
    const status = await until(
      async () => (await getJson(app, '/api/sync/status')).body,
      (s) => s.state === 'IDLE' && (s.lastRun?.id ?? 0) > before,
    );
    return status.lastRun.status;
  };
  expect(await syncRun()).toBe('SUCCEEDED');
  return { app, fake, clock, syncRun };
}

const updatesOf = (results: any[]) =>
  results.map((r) => {
    expect(r.errors).toBeUndefined();
    return r.data.conditionsChanged;
  });

describe('conditionsChanged on one server', () => {
  it('sends each resort’s report, then SYNC, HOUR and LIFTS as they happen, alike on SSE, multipart and WebSocket; nothing that did not change', async () => {
    const { app, fake, clock, syncRun } = await liveServer();
    const signal = AbortSignal.timeout(60_000);
    const request = { query: SUBSCRIPTION, variables: { ids: IDS } };
    const streams: Record<string, ResultStream> = {
      sse: await httpSubscription(app.url, 'sse', request, TEST_KEY, signal),
      multipart: await httpSubscription(app.url, 'multipart', request, TEST_KEY, signal),
      ws: wsSubscription(app.url, request, TEST_KEY),
    };
    const next = async (n: number) => {
      const seen = await Promise.all(Object.values(streams).map(async (s) => updatesOf(await s.take(n))));
      // Every transport carries the same updates, in the same order.
      for (const s of seen.slice(1)) expect(s).toEqual(seen[0]);
      return seen[0]!;
    };
    try {
      const initial = await next(2);
      const runAt = clock.now().toISOString();
      expect(initial.map((u) => [u.resortId, u.reason, u.syncedAt])).toEqual([
        ['steamboat', 'INITIAL', runAt],
        ['zermatt', 'INITIAL', runAt],
      ]);
      expect(initial[0].conditions).toMatchObject({ source: 'open-meteo', openLifts: 1, totalLifts: 4, updatedAt: '2027-01-15T05:00:00-07:00' });

      // A run a minute later fetches the same numbers: sent all the same, its syncedAt moved.
      clock.advance(60_000);
      expect(await syncRun()).toBe('SUCCEEDED');
      const synced = await next(2);
      expect(synced.map((u) => [u.resortId, u.reason, u.syncedAt])).toEqual([
        ['steamboat', 'SYNC', clock.now().toISOString()],
        ['zermatt', 'SYNC', clock.now().toISOString()],
      ]);
      expect(synced.map((u) => u.conditions)).toEqual(initial.map((u) => u.conditions));

      // The hour turns on the server's clock: each report describes the new hour.
      clock.advance(3_600_000);
      const hour = await next(2);
      expect(hour.map((u) => [u.resortId, u.reason, u.conditions.updatedAt])).toEqual([
        ['steamboat', 'HOUR', '2027-01-15T06:00:00-07:00'],
        ['zermatt', 'HOUR', '2027-01-15T14:00:00+01:00'],
      ]);
      expect(hour.map((u) => u.syncedAt)).toEqual(synced.map((u) => u.syncedAt));

      // Weather is down north of the equator, Liftie is not: Steamboat's lifts open, no new weather
      // anywhere north, so Zermatt's report is the same and nothing is sent for it.
      fake.mode = 'fail-north';
      fake.liftStatus = { ...fake.liftStatus, 'Born Free Express': 'open', 'Riva Bahn Express': 'open' };
      clock.advance(60_000);
      expect(await syncRun()).toBe('PARTIAL');
      const [lifts] = await next(1);
      expect(lifts).toMatchObject({ resortId: 'steamboat', reason: 'LIFTS', syncedAt: synced[0].syncedAt, conditions: { openLifts: 3, totalLifts: 4 } });

      // The next change reaches both: had Zermatt been sent anything in between, it would come first.
      fake.mode = 'ok';
      clock.advance(60_000);
      expect(await syncRun()).toBe('SUCCEEDED');
      expect((await next(2)).map((u) => [u.resortId, u.reason])).toEqual([
        ['steamboat', 'SYNC'],
        ['zermatt', 'SYNC'],
      ]);
      // Nothing more was sent for that run: the next updates are the next hour's (a late copy would come first).
      clock.advance(3_600_000);
      expect((await next(2)).map((u) => [u.resortId, u.reason, u.conditions.updatedAt])).toEqual([
        ['steamboat', 'HOUR', '2027-01-15T07:00:00-07:00'],
        ['zermatt', 'HOUR', '2027-01-15T15:00:00+01:00'],
      ]);
    } finally {
      for (const s of Object.values(streams)) s.close();
    }
  });

  it('reports in each units system; one stream per subscriber whatever the number of resorts', async () => {
    const { app, clock, syncRun } = await liveServer();
    const signal = AbortSignal.timeout(30_000);
    const metric = await httpSubscription(app.url, 'sse', { query: SUBSCRIPTION, variables: { ids: ['zermatt'] } }, TEST_KEY, signal);
    const imperial = await httpSubscription(
      app.url,
      'sse',
      { query: SUBSCRIPTION, variables: { ids: ['zermatt', 'zermatt'], units: 'IMPERIAL' } },
      TEST_KEY,
      signal,
    );
    try {
      const [m] = updatesOf(await metric.take(1));
      const [i] = updatesOf(await imperial.take(1));
      expect(i.conditions.id).toBe(m.conditions.id.replace('/METRIC', '/IMPERIAL'));
      expect(i.conditions.snowDepthBase).toBeCloseTo(m.conditions.snowDepthBase / 2.54, 0);
      // The same id twice is one resort: one report of a run, the next update being the next hour's.
      clock.advance(60_000);
      expect(await syncRun()).toBe('SUCCEEDED');
      expect(updatesOf(await imperial.take(1))[0]).toMatchObject({ resortId: 'zermatt', reason: 'SYNC' });
      clock.advance(3_600_000);
      expect(updatesOf(await imperial.take(1))[0]).toMatchObject({ resortId: 'zermatt', reason: 'HOUR' });
    } finally {
      metric.close();
      imperial.close();
    }
  });
});

describe('a subscription stream that stays quiet', () => {
  it('multipart writes an empty part as a heartbeat (Apollo Client skips it), SSE a comment', async () => {
    const quiet = await startTestServer({ config: { graphql: { ...loadConfig({}).graphql, heartbeatMs: 50 } } });
    try {
      for (const [accept, beat] of [
        ['multipart/mixed', '\r\n\r\n{}\r\n---'],
        ['text/event-stream', ':\n\n'],
      ] as const) {
        const abort = new AbortController();
        // Bounded: a stream that goes quiet fails the test instead of holding it.
        const limit = AbortSignal.timeout(10_000);
        const res = await fetch(`${quiet.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept, 'x-api-key': TEST_KEY },
          body: JSON.stringify({ query: SUBSCRIPTION, variables: { ids: ['vail'] } }),
          signal: AbortSignal.any([abort.signal, limit]),
        });
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        try {
          // The first report, then heartbeats only: nothing changes on this server.
          while (text.split(beat).length < 4) {
            const { done, value } = await reader.read();
            if (done) throw new Error(`${accept}: the stream ended before three heartbeats: ${JSON.stringify(text)}`);
            text += decoder.decode(value, { stream: true });
          }
        } catch (err) {
          if (limit.aborted) throw new Error(`${accept}: no three heartbeats within 10 s: ${JSON.stringify(text)}`);
          throw err;
        } finally {
          abort.abort();
        }
        expect(text.match(/"reason":"INITIAL"/g)).toHaveLength(1);
      }
    } finally {
      await quiet.close();
    }
  });
});

describe('conditionsChanged refuses what it cannot serve, on every streaming transport', () => {
  // These change nothing on their server: one for them all.
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer();
  });
  afterAll(() => app?.close());
  const streaming = TRANSPORTS.filter((x) => /SSE|multipart|WebSocket/.test(x.name));

  it.each(streaming.map((x) => [x.name, x] as const))('%s: more than 50 ids, naming the bound', async (_name, transport) => {
    const ids = Array.from({ length: 51 }, (_, i) => `resort-${i}`);
    const answer = await transport.send(app, { query: SUBSCRIPTION, variables: { ids } });
    if (answer.status !== null) expect(answer.status).toBe(400);
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      errors: [{ name: 'resortIds', bound: 'at most 50 distinct items', message: 'resortIds must be at most 50 distinct items' }],
    });
  });

  it.each(streaming.map((x) => [x.name, x] as const))('%s: unknown ids, each named', async (_name, transport) => {
    const answer = await transport.send(app, { query: SUBSCRIPTION, variables: { ids: ['vail', 'atlantis', 'el-dorado'] } });
    if (answer.status !== null) expect(answer.status).toBe(404);
    expect(answer.body.errors).toHaveLength(1);
    const [error] = answer.body.errors!;
    expect(error!.message).toBe('Resorts not found: "atlantis", "el-dorado"');
    expect(error!.extensions).toMatchObject({
      code: 'NOT_FOUND',
      errors: [
        { name: 'resortIds', value: 'atlantis' },
        { name: 'resortIds', value: 'el-dorado' },
      ],
    });
  });

  it('copies of one id count once against the bound: 51 of "vail", in any case, are one resort', async () => {
    const ids = [...Array.from({ length: 50 }, () => 'vail'), 'VAIL'];
    const stream = await httpSubscription(app.url, 'sse', { query: SUBSCRIPTION, variables: { ids } }, TEST_KEY, AbortSignal.timeout(20_000));
    try {
      expect(stream.status).toBe(200);
      expect(updatesOf(await stream.take(1))).toMatchObject([{ resortId: 'vail', reason: 'INITIAL' }]);
    } finally {
      stream.close();
    }
  });

  it('no ids at all is refused too', async () => {
    const answer = await TRANSPORTS.find((x) => x.name === 'POST, SSE')!.send(app, { query: SUBSCRIPTION, variables: { ids: [] } });
    expect(answer.status).toBe(400);
    expect(answer.body.errors![0]!.extensions).toMatchObject({ errors: [{ name: 'resortIds', bound: 'at least 1 item' }] });
  });

  it('is a subscription: a plain JSON request for it is told to ask for a stream', async () => {
    const answer = await TRANSPORTS.find((x) => x.name === 'POST application/json')!.send(app, { query: SUBSCRIPTION, variables: { ids: ['vail'] } });
    expect(answer.status).toBe(406);
    expect(answer.body.errors![0]!.extensions!.code).toBe('NOT_ACCEPTABLE');
  });
});
