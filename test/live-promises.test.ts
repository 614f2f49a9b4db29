import { createHash } from 'node:crypto';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { getJson, privateDatabase, startTestServer, testDir, TEST_KEY } from './helpers/server.js';
import { keysCli } from './helpers/process.js';
import { rawSocket } from './helpers/raw-socket.js';
import { movableClock } from './helpers/clock.js';
import { httpSubscription } from './helpers/live.js';
import { loadConfig } from '../src/lib/config.js';

/**
 * What docs/graphql.md and docs/hardening.md promise of live streams, each against the bundle:
 * a subscription's cost is charged once and shown in its first event; `syncedAt` of a resort never
 * fetched is 1970-01-01; a client that does not read is cut with TOO_SLOW; a key over its limits
 * at connection_init gets 1013; shutdown says 1001; a document named by id runs over a WebSocket
 * as over HTTP. Servers here have clocks the tests move (the hour turning is a change).
 */

const LIVE = 'subscription Live($ids: [ID!]!) { conditionsChanged(resortIds: $ids) { resortId reason syncedAt conditions { updatedAt snowDepthBase } } }';

describe('live streams on one server', () => {
  let app: RunningApp;
  let dbPath: string;
  const clock = movableClock('2027-01-15T12:00:00Z');
  beforeAll(async () => {
    dbPath = privateDatabase('gateway-live-promises-');
    app = await startTestServer({ dbPath, now: clock.now, config: { streams: { perKey: 200, perAddress: 200, total: 400 } } });
  });
  afterAll(() => app?.close());

  /**
   * A server of the same database and clock whose bounds leave a reader that stops every room to
   * fall behind: a roomy WebSocket buffer (STREAM_MAX_BUFFERED_BYTES), so each subscription's own
   * bound comes first; heartbeats a day apart, so the hours turned do not find a socket silent;
   * the hour looked at every 20 ms.
   */
  const roomyServer = () =>
    startTestServer({
      dbPath,
      now: clock.now,
      config: {
        streams: { perKey: 200, perAddress: 200, total: 400, maxBufferedBytes: 256 * 1024 * 1024 },
        graphql: { ...loadConfig({}).graphql, heartbeatMs: 86_400_000, liveCheckMs: 20 },
      },
    });

  /**
   * Turns the hour on the clock until the server's feed has no subscriber left: the kernel's
   * buffers fill first, then each subscription's waiting updates, and each is cut; the feed's own
   * count says when a round was told. At most `rounds` turns.
   */
  async function turnHoursUntilCut(server: RunningApp, rounds: number): Promise<void> {
    const metric = async (name: string) => Number((await getJson(server, '/metrics')).body.match(new RegExp(`^${name} ([\\d.e+-]+)$`, 'm'))[1]);
    for (let round = 0; (await metric('live_subscribers')) > 0; round++) {
      expect(round).toBeLessThan(rounds);
      const told = await metric('live_fanout_cpu_seconds');
      clock.advance(3_600_000);
      await expect
        .poll(async () => (await metric('live_fanout_cpu_seconds')) > told || (await metric('live_subscribers')) === 0, { timeout: 20_000 })
        .toBe(true);
    }
  }

  it('a subscription’s cost is charged once, when it starts: its first event carries it, the later ones nothing of it', async () => {
    const signal = AbortSignal.timeout(30_000);
    const stream = await httpSubscription(app.url, 'sse', { query: LIVE, variables: { ids: ['vail', 'zermatt', 'niseko'] } }, TEST_KEY, signal);
    try {
      const [first, ...rest] = await stream.take(3);
      expect(first.extensions.cost.requestedQueryCost).toBeGreaterThan(0);
      expect(first.extensions.cost.throttleStatus.currentlyAvailable).toEqual(expect.any(Number));
      expect(rest.map((r) => r.extensions)).toEqual([undefined, undefined]);
      // The hour turns: three more reports, none of them charged or carrying a cost.
      clock.advance(3_600_000);
      const later = await stream.take(3);
      expect(later.map((r) => r.data.conditionsChanged.reason)).toEqual(['HOUR', 'HOUR', 'HOUR']);
      expect(later.map((r) => r.extensions)).toEqual([undefined, undefined, undefined]);
    } finally {
      stream.close();
    }
  });

  it('a WebSocket client that stops reading is cut with TOO_SLOW on each subscription once two rounds of updates wait, and told so when it reads again', async () => {
    const roomy = await roomyServer();
    try {
      const socket = rawSocket(roomy);
      await socket.init(TEST_KEY);
      // 100 subscriptions of 50 resorts each on one socket: a round of changes is ~1 MB.
      const ids = ((await getJson(roomy, '/api/resorts?limit=50')).body.resorts as { id: string }[]).map((r) => r.id);
      const subs = Array.from({ length: 100 }, (_, i) => `s${i}`);
      for (const id of subs) socket.send({ id, type: 'subscribe', payload: { query: LIVE, variables: { ids } } });
      await socket.next((m) => m.id === 's99' && m.type === 'next');
      socket.pause();
      await turnHoursUntilCut(roomy, 40);
      socket.resume();
      for (const id of subs) {
        const cut = await socket.next((m) => m.id === id && m.type === 'next' && m.payload.errors, 60_000);
        expect(cut.payload.errors).toEqual([
          { message: expect.stringMatching(/read more slowly than they came \(at most 150 may wait\)/), extensions: { code: 'TOO_SLOW', status: 429 } },
        ]);
        await socket.next((m) => m.id === id && m.type === 'complete');
      }
      socket.socket.close();
    } finally {
      await roomy.close();
    }
  }, 120_000);

  it('an SSE client that stops reading is cut with TOO_SLOW once two rounds of updates wait, and told so when it reads again', async () => {
    const roomy = await roomyServer();
    try {
      const ids = ((await getJson(roomy, '/api/resorts?limit=50')).body.resorts as { id: string }[]).map((r) => r.id);
      // Every field, a few times over (aliases): a round of changes is large, so the kernel's buffers fill in a few rounds.
      const fields =
        'id date updatedAt source status statusReason seasonOpens seasonCloses snowDepthBase snowDepthMid snowDepthSummit openTrails totalTrails openLifts totalLifts temperature windSpeed';
      const query = `subscription Big($ids: [ID!]!) { conditionsChanged(resortIds: $ids) { resortId reason syncedAt ${'abcdefgh'
        .split('')
        .map((alias) => `${alias}: conditions { ${fields} }`)
        .join(' ')} } }`;
      let text = '';
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request(`${roomy.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': TEST_KEY },
        });
        req.on('response', resolve).on('error', reject);
        req.end(JSON.stringify({ query, variables: { ids } }));
      });
      expect(response.statusCode).toBe(200);
      response.setEncoding('utf8');
      const onData = (chunk: string) => void (text += chunk);
      response.on('data', onData);
      await expect.poll(() => text.split('event: next').length - 1, { timeout: 20_000 }).toBe(ids.length);
      response.off('data', onData);
      response.pause();
      text = '';
      await turnHoursUntilCut(roomy, 60);
      response.on('data', onData);
      response.resume();
      await new Promise((resolve) => response.on('end', resolve));
      const events = text.split('\n\n').filter((e) => e.startsWith('event: '));
      expect(events.at(-1)).toBe('event: complete\ndata:');
      const last = JSON.parse(events.at(-2)!.slice('event: next\ndata: '.length));
      expect(last).toEqual({
        errors: [{ message: expect.stringMatching(/read more slowly than they came \(at most 150 may wait\)/), extensions: { code: 'TOO_SLOW', status: 429 } }],
      });
    } finally {
      await roomy.close();
    }
  }, 120_000);

  it('at connection_init, a key over its rate or its quota is closed with 1013 naming the limit', async () => {
    const made = async (name: string, ...options: string[]) => (await keysCli(dbPath, 'create', '--name', name, ...options)).stdout.match(/szg_[\w-]+/)![0];
    const slow = await made('one-a-second', '--rate', '1');
    const spent = await made('one-a-month', '--quota', '1');
    for (const [key, limit] of [
      [slow, /Rate limit of 1 requests per second exceeded/],
      [spent, /Monthly quota of 1 requests used up/],
    ] as const) {
      // One request uses what the key has (this second, this month): the socket's connection_init is the next.
      expect((await getJson(app, '/api/zip/05401', { apiKey: key })).status).toBe(200);
      const s = rawSocket(app);
      await s.opened;
      s.send({ type: 'connection_init', payload: { 'x-api-key': key } });
      const { code, reason } = await s.closed;
      expect(code).toBe(1013);
      expect(reason).toMatch(limit);
    }
  });
});

describe('a resort never fetched', () => {
  it('reports syncedAt 1970-01-01T00:00:00.000Z (never), as the schema says', async () => {
    const app = await startTestServer({ dbPath: privateDatabase('gateway-never-synced-', { weather: false }), config: { provider: 'open-meteo' } });
    try {
      const stream = await httpSubscription(app.url, 'sse', { query: LIVE, variables: { ids: ['vail'] } }, TEST_KEY, AbortSignal.timeout(30_000));
      const [first] = await stream.take(1);
      expect(first.data.conditionsChanged).toMatchObject({ resortId: 'vail', reason: 'INITIAL', syncedAt: '1970-01-01T00:00:00.000Z' });
      stream.close();
    } finally {
      await app.close();
    }
  });
});

describe('WebSocket messages that are not UTF-8', () => {
  it('a binary frame with bytes that are not UTF-8 closes the socket with 1007, not run with U+FFFD in their place', async () => {
    const app = await startTestServer();
    try {
      const s = rawSocket(app);
      await s.init(TEST_KEY);
      const text = JSON.stringify({ id: 'bad', type: 'subscribe', payload: { query: '{ resorts(filter: { q: "v#ail" }) { total } }' } });
      const [before, after] = text.split('#');
      s.socket.send(Buffer.concat([Buffer.from(before!), Buffer.from([0xff]), Buffer.from(after!)]), { binary: true });
      expect(await s.closed).toEqual({ code: 1007, reason: 'Invalid message received: not UTF-8' });
      expect(s.messages.filter((m) => m.id === 'bad')).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('WebSockets at shutdown, and documents named by id', () => {
  it('a server that stops tells its WebSocket clients 1001', async () => {
    const app = await startTestServer();
    const s = rawSocket(app);
    await s.init(TEST_KEY);
    await app.close();
    expect(await s.closed).toEqual({ code: 1001, reason: 'Going away: the server is stopping' });
  });

  it('a subscribe that names a trusted document by documentId, or a persisted query by hash, with no query text, runs as over HTTP', async () => {
    const TRUSTED = 'query TrustedZip { zip(zip: "05401") { city } }';
    const hash = createHash('sha256').update(TRUSTED).digest('hex');
    const manifest = path.join(testDir('manifest-ws-'), 'persisted-documents.json');
    writeFileSync(manifest, JSON.stringify({ [`sha256:${hash}`]: TRUSTED }));
    const app = await startTestServer({ config: { trustedDocuments: { manifest, only: true } } });
    try {
      const s = rawSocket(app);
      await s.init(TEST_KEY);
      s.send({ id: 'byId', type: 'subscribe', payload: { documentId: `sha256:${hash}` } });
      s.send({ id: 'byHash', type: 'subscribe', payload: { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } } });
      for (const id of ['byId', 'byHash'])
        expect((await s.next((m) => m.id === id && m.type === 'next')).payload.data).toEqual({ zip: { city: 'Burlington' } });
      expect(s.socket.readyState).toBe(s.socket.OPEN);
      s.socket.close();
    } finally {
      await app.close();
    }
  });
});
