import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { getJson, privateDatabase, startTestServer, TEST_KEY } from './helpers/server.js';
import { keysCli } from './helpers/process.js';
import { rawSocket } from './helpers/raw-socket.js';
import { STREAM_ROWS, type StreamSession } from './helpers/stream-rows.js';

/**
 * What stays open is counted against its key and ends with it, on every long-lived channel: the
 * rows are SSE and multipart over POST and GET and the WebSocket (test/helpers/stream-rows.ts),
 * the columns the rules below. A subscription is one of its key's streams wherever it runs; a key
 * revoked, or whose quota is used up, loses its open streams with the reason. Against the bundle,
 * keys made with the keys command.
 */

const LIVE = { query: 'subscription Live($ids: [ID!]!) { conditionsChanged(resortIds: $ids) { resortId reason } }', variables: { ids: ['vail'] } };

let app: RunningApp;
let dbPath: string;
beforeAll(async () => {
  dbPath = privateDatabase('gateway-streams-');
  app = await startTestServer({ dbPath, config: { streams: { perKey: 4, perAddress: 100 } } });
});
afterAll(() => app?.close());

/** A key of its own from the keys command: its secret. */
async function newKey(name: string, ...options: string[]): Promise<string> {
  const made = await keysCli(dbPath, 'create', '--name', name, ...options);
  expect(made.status, made.stderr).toBe(0);
  return made.stdout.match(/szg_[\w-]+/)![0];
}

describe.each(STREAM_ROWS.map((row) => [row.name, row] as const))('%s', (name, row) => {
  const slug = name.replace(/\W+/g, '-').toLowerCase();

  it('a subscription is one of its key’s streams: past the key’s own cap (--streams) the next is refused naming the bound, and what is open stays', async () => {
    const key = await newKey(`cap-${slug}`, '--streams', '2');
    const session: StreamSession = await row.session(app, key);
    try {
      const open = [await session.subscribe(LIVE), await session.subscribe(LIVE)];
      for (const s of open) expect(s.refused).toBeUndefined();
      const third = await session.subscribe(LIVE);
      expect(third.refused).toMatchObject({ code: 'TOO_MANY_STREAMS', message: expect.stringMatching(/already holds 2 open streams/) });
      if (third.refused!.status !== null) {
        expect(third.refused!.status).toBe(429);
        expect(third.refused!.bound).toBe('at most 2 open at once per key');
      }
      // The refusal touched nothing else: a query answers on the same way in, and one stream closed makes room.
      expect((await session.query({ query: '{ zip(zip: "05401") { city } }' })).data).toEqual({ zip: { city: 'Burlington' } });
      open[0]!.close();
      await expect
        .poll(async () => {
          const s = await session.subscribe(LIVE);
          if (!s.refused) s.close();
          return s.refused?.code ?? 'admitted';
        })
        .toBe('admitted');
    } finally {
      session.close();
    }
  });

  it('a key revoked while it holds streams: each ends with the reason (UNAUTHENTICATED), a WebSocket then closes with 4403', async () => {
    const key = await newKey(`revoked-${slug}`);
    const session = await row.session(app, key);
    try {
      const held = await session.subscribe(LIVE);
      expect(held.results[0].data.conditionsChanged).toEqual({ resortId: 'vail', reason: 'INITIAL' });
      expect((await keysCli(dbPath, 'revoke', `revoked-${slug}`)).status).toBe(0);
      const end = await held.ended;
      expect(end.errors).toEqual([{ message: 'The API key has been revoked.', extensions: { code: 'UNAUTHENTICATED' } }]);
      if (row.name.startsWith('WebSocket')) expect(end.closeCode).toBe(4403);
    } finally {
      session.close();
    }
  });

  it('a key whose monthly quota is used up while it holds streams: each ends with the reason (RATE_LIMITED)', async () => {
    const key = await newKey(`quota-${slug}`, '--quota', '5');
    const session = await row.session(app, key);
    try {
      const held = await session.subscribe(LIVE);
      // Requests of the same key use up what is left of its quota.
      for (;;) if ((await getJson(app, '/api/zip/05401', { apiKey: key })).status === 429) break;
      const end = await held.ended;
      expect(end.errors).toEqual([{ message: expect.stringMatching(/^Monthly quota of 5 requests used up/), extensions: { code: 'RATE_LIMITED' } }]);
    } finally {
      session.close();
    }
  });
});

describe('streams of one key across every channel', () => {
  it('SSE, multipart and WebSocket subscriptions share the key’s cap; a WebSocket running none counts as one', async () => {
    const key = await newKey('mixed', '--streams', '3');
    const [sse, multipart] = [STREAM_ROWS[0]!, STREAM_ROWS[2]!];
    const a = await sse.session(app, key);
    const b = await multipart.session(app, key);
    await a.subscribe(LIVE);
    await b.subscribe(LIVE);
    // The socket itself is the third.
    const socket = rawSocket(app);
    await socket.init(key);
    socket.send({ id: '1', type: 'subscribe', payload: LIVE });
    expect((await socket.next((m) => m.id === '1')).type).toBe('next');
    socket.send({ id: '2', type: 'subscribe', payload: LIVE });
    expect(await socket.next((m) => m.id === '2')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'TOO_MANY_STREAMS' } }] });
    // A fourth socket of the key is refused at connection_init.
    const another = rawSocket(app);
    await another.opened;
    another.send({ type: 'connection_init', payload: { 'x-api-key': key } });
    expect(await another.closed).toMatchObject({ code: 1013, reason: expect.stringMatching(/3 open streams/) });
    for (const s of [a, b]) s.close();
    socket.socket.close();
  });

  it('an operation id taken again before its operation has ended closes the socket (4409), and leaves nothing of it counted', async () => {
    const key = await newKey('id-again', '--streams', '2');
    for (let round = 0; round < 3; round++) {
      const socket = rawSocket(app);
      await socket.init(key);
      // In one go: the second subscribe comes while the first is being started.
      for (const m of [
        { id: 'x', type: 'subscribe', payload: LIVE },
        { id: 'x', type: 'complete' },
        { id: 'x', type: 'subscribe', payload: LIVE },
      ])
        socket.send(m);
      expect((await socket.closed).code).toBe(4409);
    }
    // The key's whole cap is free: two subscriptions on a new socket.
    const socket = rawSocket(app);
    await socket.init(key);
    for (const id of ['a', 'b']) {
      socket.send({ id, type: 'subscribe', payload: LIVE });
      expect((await socket.next((m) => m.id === id)).type).toBe('next');
    }
    socket.socket.close();
  });

  it('within a key, one client address holds at most STREAMS_PER_ADDRESS; another address still may', async () => {
    const narrow = await startTestServer({ dbPath, config: { streams: { perKey: 10, perAddress: 2 } } });
    try {
      const here = rawSocket(narrow, { from: '127.0.0.2' });
      await here.init(TEST_KEY);
      for (const id of ['1', '2']) {
        here.send({ id, type: 'subscribe', payload: LIVE });
        expect((await here.next((m) => m.id === id)).type).toBe('next');
      }
      here.send({ id: '3', type: 'subscribe', payload: LIVE });
      const refused = await here.next((m) => m.id === '3');
      expect(refused).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'TOO_MANY_STREAMS' } }] });
      expect(refused.payload[0].message).toMatch(/This address already holds 2 of this key's open streams/);
      const there = rawSocket(narrow, { from: '127.0.0.3' });
      await there.init(TEST_KEY);
      there.send({ id: '1', type: 'subscribe', payload: LIVE });
      expect((await there.next((m) => m.id === '1')).type).toBe('next');
      for (const s of [here, there]) s.socket.close();
    } finally {
      await narrow.close();
    }
  });

  it('keys list shows a key’s own cap; --streams must be a whole number from 1', async () => {
    await newKey('listed', '--streams', '250');
    expect((await keysCli(dbPath, 'list')).stdout).toMatch(/listed .* 250 streams/);
    const bad = await keysCli(dbPath, 'create', '--name', 'bad-streams', '--streams', '0');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--streams must be a whole number from 1 to 1000000/);
  });
});
