import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { getJson, privateDatabase, startTestServer, TEST_KEY } from './helpers/server.js';
import { rawSocket } from './helpers/raw-socket.js';
import { movableClock } from './helpers/clock.js';

/**
 * The WebSocket's own bounds, as an attacker tries them against the bundle: sockets without a
 * key are a small pool that never crowds out clients; a key in the upgrade is checked before the
 * handshake; sockets that run nothing give way at the connection cap; pings and unread bytes
 * cannot grow memory. Each server has its own clock, moved by the tests, never waited for.
 */

describe('sockets without a key: a small pool per address and in all', () => {
  let app: RunningApp;
  const clock = movableClock('2027-01-15T12:00:00Z');
  beforeAll(async () => {
    app = await startTestServer({ privateDb: true, now: clock.now, config: { pendingSockets: { perAddress: 3, total: 5 } } });
  });
  afterAll(() => app.close());

  it('past an address’s share a keyless upgrade is refused at the handshake (429); with the pool full, the oldest socket of the address holding the most makes room; a client with its key is served throughout', async () => {
    // A client that has its socket and a subscription before the flood.
    const client = rawSocket(app, { headers: { 'x-api-key': TEST_KEY } });
    await client.init(null);
    client.send({ id: 's', type: 'subscribe', payload: { query: 'subscription { syncProgress { state } }' } });
    await client.next((m) => m.id === 's' && m.type === 'next');

    const mine = [];
    for (let i = 0; i < 3; i++) {
      const s = rawSocket(app, { from: '127.0.0.2' });
      await s.opened;
      mine.push(s);
    }
    const fourth = rawSocket(app, { from: '127.0.0.2' });
    const perAddress = await fourth.opened.then(
      () => null,
      (err) => err,
    );
    expect(perAddress).toMatchObject({
      status: 429,
      body: { code: 'TOO_MANY_CONNECTIONS', errors: [{ bound: expect.stringMatching(/3 per client address/) }] },
    });

    const others = [rawSocket(app, { from: '127.0.0.3' }), rawSocket(app, { from: '127.0.0.4' })];
    await Promise.all(others.map((s) => s.opened));
    // The pool holds 5, its most: a browser from an address of its own gets in, and the address
    // holding the most (127.0.0.2, three) loses its oldest.
    const browser = rawSocket(app, { from: '127.0.0.5' });
    await browser.opened;
    expect(await mine[0]!.closed).toEqual({ code: 1013, reason: 'Try again later: its place was needed (no key sent yet)' });
    await browser.init(TEST_KEY);

    // Requests, a keyed upgrade and the client's own socket are untouched.
    expect((await getJson(app, '/api/zip/05401')).status).toBe(200);
    const keyed = rawSocket(app, { headers: { 'x-api-key': TEST_KEY }, from: '127.0.0.5' });
    await keyed.init(null);
    client.send({ id: 'q', type: 'subscribe', payload: { query: '{ zip(zip: "05401") { city } }' } });
    expect((await client.next((m) => m.id === 'q' && m.type === 'next')).payload.data).toEqual({ zip: { city: 'Burlington' } });

    // At the init time-out the pool empties (4408), and a keyless upgrade is taken again.
    clock.advance(3_001);
    for (const s of [...mine.slice(1), ...others]) expect((await s.closed).code).toBe(4408);
    const again = rawSocket(app, { from: '127.0.0.2' });
    await again.init(TEST_KEY);
    for (const s of [client, browser, keyed, again]) {
      expect(s.socket.readyState).toBe(s.socket.OPEN);
      s.socket.close();
    }
  });

  it('a socket that has sent no key leaves the pool once its connection_init key passes', async () => {
    const sockets = [1, 2, 3].map(() => rawSocket(app, { from: '127.0.0.6' }));
    for (const s of sockets) await s.init(TEST_KEY);
    // Three acknowledged: none of them is pending, so the address may open more.
    const fourth = rawSocket(app, { from: '127.0.0.6' });
    await fourth.init(TEST_KEY);
    for (const s of [...sockets, fourth]) s.socket.close();
  });

  it('a key in the upgrade request is checked before the handshake: a wrong one is 401 problem+json, a good one needs nothing in connection_init', async () => {
    const wrong = rawSocket(app, { headers: { 'x-api-key': 'szg_not_a_key_anybody_has' } });
    const refused = await wrong.opened.then(
      () => null,
      (err) => err,
    );
    expect(refused).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED', status: 401 } });
    const bearer = rawSocket(app, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    await bearer.init(null);
    bearer.socket.close();
  });

  it('an upgrade enters by the same door as a request: the refusal names the client’s request id, and upgrades with a wrong key count in the same flood limit as requests', async () => {
    const own = await startTestServer({ privateDb: true, now: movableClock('2027-01-15T12:00:00Z').now });
    try {
      const named = rawSocket(own, { headers: { 'x-api-key': 'szg_not_a_key_anybody_has', 'x-request-id': 'door-test-1' }, from: '127.0.0.7' });
      const refused = await named.opened.then(
        () => null,
        (err) => err,
      );
      expect(refused).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED', requestId: 'door-test-1' } });
      // The rest of an address's allowance of requests without a valid key, spent over HTTP
      // (1,000 in a window on the server's clock, which does not move here)...
      const agent = new http.Agent({ keepAlive: true, maxSockets: 8, localAddress: '127.0.0.7' });
      const refusals = await Promise.all(
        Array.from(
          { length: 999 },
          () =>
            new Promise<number>((resolve, reject) =>
              http
                .get(`${own.url}/api/zip/05401`, { agent, headers: { 'x-api-key': 'szg_not_a_key_anybody_has' } }, (res) => {
                  res.resume();
                  res.on('end', () => resolve(res.statusCode!));
                })
                .on('error', reject),
            ),
        ),
      );
      agent.destroy();
      expect(new Set(refusals)).toEqual(new Set([401]));
      // ...then the next upgrade with a wrong key from the address is the flood's 429, as a request would be.
      const flooding = rawSocket(own, { headers: { 'x-api-key': 'szg_not_a_key_anybody_has' }, from: '127.0.0.7' });
      const flood = await flooding.opened.then(
        () => null,
        (err) => err,
      );
      expect(flood).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED' } });
      // Another address is not held for it.
      const other = rawSocket(own, { headers: { 'x-api-key': 'szg_not_a_key_anybody_has' }, from: '127.0.0.8' });
      expect(
        await other.opened.then(
          () => null,
          (err) => err.status,
        ),
      ).toBe(401);
    } finally {
      await own.close();
    }
  });

  it('before connection_ack a socket may send a few messages (pings included), then it is closed with 1008', async () => {
    const s = rawSocket(app);
    await s.opened;
    for (let i = 0; i < 9; i++) s.send({ type: 'ping' });
    const { code, reason } = await s.closed;
    expect(code).toBe(1008);
    expect(reason).toMatch(/At most 8 messages before connection_ack/);
  });

  it('protocol-level ping frames count as messages: nine before connection_ack close the socket with 1008', async () => {
    const s = rawSocket(app);
    await s.opened;
    for (let i = 0; i < 9; i++) s.socket.ping();
    expect((await s.closed).code).toBe(1008);
  });

  it('a socket sends at most 256 messages at once, then 64 a second (on the server’s clock); past it, closed with 1008', async () => {
    const s = rawSocket(app);
    await s.init(TEST_KEY);
    // connection_init was the first: 255 more, and the next is one too many.
    for (let i = 0; i < 255; i++) s.send({ type: 'ping' });
    s.send({ id: 'read', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await s.closed).toEqual({ code: 1008, reason: 'More than 64 messages a second sent (a burst of 256 at most)' });
  });

  it('before connection_ack a message is at most 4 KiB (connection_init and pings need no more); a larger one closes the socket with 1008', async () => {
    const s = rawSocket(app);
    await s.opened;
    s.send({ type: 'ping', payload: { junk: 'x'.repeat(5000) } });
    expect(await s.closed).toEqual({ code: 1008, reason: 'At most 4096 bytes a message before connection_ack' });
  });

  it('a handshake the WebSocket library refuses (no Sec-WebSocket-Key, a wrong version) is problem+json with the security headers', async () => {
    const handshake = (headers: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(app.port, '127.0.0.1', () =>
          socket.write(`GET /graphql HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\nx-api-key: ${TEST_KEY}\r\n${headers}\r\n`),
        );
        let out = '';
        socket.on('data', (d) => (out += d));
        socket.on('close', () => resolve(out));
      });
    for (const [headers, status] of [
      ['sec-websocket-version: 13\r\n', 400],
      ['sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 7\r\n', 426],
    ] as const) {
      const answer = await handshake(headers);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(head).toMatch(/content-type: application\/problem\+json/);
      expect(head).toMatch(/x-content-type-options: nosniff/);
      expect(JSON.parse(body!)).toMatchObject({ status, detail: expect.stringMatching(/Sec-WebSocket-(Key|Version)/) });
    }
  });

  it('a client offering both subprotocols is served with graphql-transport-ws', async () => {
    const s = rawSocket(app, { protocols: ['graphql-ws', 'graphql-transport-ws'] });
    await s.init(TEST_KEY);
    expect(s.socket.protocol).toBe('graphql-transport-ws');
    s.socket.close();
  });
});

describe('pings and unread bytes cannot grow memory', () => {
  let app: RunningApp;
  const clock = movableClock('2027-01-15T12:00:00Z');
  beforeAll(async () => {
    app = await startTestServer({ privateDb: true, now: clock.now, config: { streams: { maxBufferedBytes: 64 * 1024 } } });
  });
  afterAll(() => app.close());

  it('a socket that pings with large payloads and does not read gets small pongs, never its payloads back', async () => {
    const s = rawSocket(app);
    await s.init(TEST_KEY);
    s.pause();
    const payload = { junk: 'x'.repeat(90_000) };
    // Ten: within the bytes a socket may send at once (a burst of 1 MiB).
    for (let i = 0; i < 10; i++) s.send({ type: 'ping', payload });
    // After the pings, a query: its answer comes once every ping before it was read.
    s.send({ id: 'after', type: 'subscribe', payload: { query: '{ __typename }' } });
    s.resume();
    await s.next((m) => m.id === 'after' && m.type === 'complete');
    const pongs = s.messages.filter((m) => m.type === 'pong');
    expect(pongs.length).toBeGreaterThan(0);
    expect(pongs.every((m) => m.payload === undefined)).toBe(true);
    // Ten echoes would be 900 KB; the pongs and the answer are a few hundred bytes.
    expect(s.bytes()).toBeLessThan(10 * 64);
    s.socket.close();
  });

  it('a socket sends at most a burst of 1 MiB, then 256 KiB a second (on the server’s clock); past it, closed with 1008', async () => {
    const s = rawSocket(app);
    await s.init(TEST_KEY);
    const ping = JSON.stringify({ type: 'ping', payload: { junk: 'x'.repeat(90_000) } });
    for (let i = 0; i < 11; i++) s.send(ping);
    // Read in order: once this answer is back, so were the pings. Four seconds later the budget is whole again.
    s.send({ id: 'read', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'read' && m.type === 'complete');
    clock.advance(4_000);
    for (let i = 0; i < 11; i++) s.send(ping);
    s.send(ping);
    const { code, reason } = await s.closed;
    expect(code).toBe(1008);
    expect(reason).toBe('More than 262144 bytes a second sent (a burst of 1048576 at most)');
  });

  it('a small ping payload is echoed', async () => {
    const s = rawSocket(app);
    await s.init(TEST_KEY);
    s.send({ type: 'ping', payload: { at: 1 } });
    expect(await s.next((m) => m.type === 'pong')).toEqual({ type: 'pong', payload: { at: 1 } });
    s.socket.close();
  });

  it('a socket whose unsent bytes pass STREAM_MAX_BUFFERED_BYTES is closed with 1008, naming the bound', async () => {
    const s = rawSocket(app);
    await s.init(TEST_KEY);
    s.pause();
    // Large answers (~1.8 MB each, 22 MB in all) nobody reads: past the kernel's buffers they wait in the server.
    for (let i = 0; i < 12; i++) s.send({ id: `big${i}`, type: 'subscribe', payload: { query: '{ states { zipcodes(limit: 1000) { zip city } } }' } });
    // A request on another connection is answered only once the server has read and answered
    // those (each answer is made in the turn that reads its message). The server's clock stays, so
    // the close is not cut short while the client catches up.
    expect((await getJson(app, '/api/zip/05401')).status).toBe(200);
    s.resume();
    const { code, reason } = await s.closed;
    expect(code).toBe(1008);
    expect(reason).toMatch(/Too slow: more than 65536 bytes waited to be sent \(STREAM_MAX_BUFFERED_BYTES\)/);
    expect(s.messages.filter((m) => m.type === 'complete').length).toBeLessThan(12);
  });

  it('a socket that answers no ping is dropped after two heartbeats (on the server’s clock)', async () => {
    const silent = rawSocket(app, { autoPong: false });
    await silent.init(TEST_KEY);
    const answering = rawSocket(app);
    await answering.init(TEST_KEY);
    // Something running, so neither is idle.
    for (const s of [silent, answering]) s.send({ id: 's', type: 'subscribe', payload: { query: 'subscription { syncProgress { state } }' } });
    await Promise.all([silent, answering].map((s) => s.next((m) => m.id === 's' && m.type === 'next')));
    const pinged = new Promise((resolve) => silent.socket.once('ping', resolve));
    clock.advance(12_001);
    await pinged;
    // The answering socket's pong went before this protocol ping: once its pong is back, the server has read both.
    answering.send({ type: 'ping' });
    await answering.next((m) => m.type === 'pong');
    clock.advance(12_001);
    expect((await silent.closed).code).toBe(1006);
    expect(answering.socket.readyState).toBe(answering.socket.OPEN);
    answering.socket.close();
  });

  it('a message over MAX_BODY_BYTES closes the socket with 1009; JSON nested too deep with 4400', async () => {
    const big = rawSocket(app);
    await big.init(TEST_KEY);
    big.send({ id: 'x', type: 'subscribe', payload: { query: `{ __typename } # ${'x'.repeat(100_001)}` } });
    expect((await big.closed).code).toBe(1009);
    const deep = rawSocket(app);
    await deep.init(TEST_KEY);
    deep.send(`{"id":"d","type":"subscribe","payload":{"query":"{ __typename }","variables":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}}`);
    const { code, reason } = await deep.closed;
    expect(code).toBe(4400);
    expect(reason).toMatch(/nested too deep/);
  });
});

describe('at the connection cap, sockets that run nothing give way', () => {
  it('a new request is answered by closing the oldest WebSocket that runs nothing; one with a subscription stays', async () => {
    const clock = movableClock('2027-01-15T12:00:00Z');
    const app = await startTestServer({
      dbPath: privateDatabase('gateway-ws-cap-'),
      now: clock.now,
      config: {
        connections: { maxConnections: 6, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 },
        streams: { total: 10, perKey: 10 },
        pendingSockets: { perAddress: 2, total: 2 },
      },
    });
    try {
      const busy = rawSocket(app);
      await busy.init(TEST_KEY);
      busy.send({ id: 's', type: 'subscribe', payload: { query: 'subscription { syncProgress { state } }' } });
      await busy.next((m) => m.id === 's' && m.type === 'next');
      const idle = [];
      for (let i = 0; i < 5; i++) {
        const s = rawSocket(app);
        await s.init(TEST_KEY);
        idle.push(s);
      }
      // Six connections open, the cap: a request comes, and the oldest socket running nothing goes.
      expect((await getJson(app, '/api/zip/05401')).status).toBe(200);
      expect((await idle[0]!.closed).code).toBe(1006);
      expect(busy.socket.readyState).toBe(busy.socket.OPEN);
      for (const s of [busy, ...idle.slice(1)]) s.socket.close();
    } finally {
      await app.close();
    }
  });

  it('a socket nobody vouched for gives way before an established client’s idle keep-alive connection, however much older that is', async () => {
    const app = await startTestServer({
      dbPath: privateDatabase('gateway-ws-cap-'),
      config: {
        connections: { maxConnections: 4, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 60_000 },
        streams: { total: 2 },
        pendingSockets: { perAddress: 3, total: 3 },
      },
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (via: http.Agent | false) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = http.get(`${app.url}/api/zip/05401`, { agent: via, headers: { 'x-api-key': TEST_KEY } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
        });
        req.on('error', reject);
      });
    try {
      // The client's connection first, idle once answered; then three sockets without a key.
      expect((await get(agent)).status).toBe(200);
      const flood = [1, 2, 3].map(() => rawSocket(app));
      await Promise.all(flood.map((s) => s.opened));
      // A fifth connection: the oldest socket nobody vouched for goes, not the client's.
      expect((await get(false)).status).toBe(200);
      expect((await flood[0]!.closed).code).toBe(1006);
      expect(await get(agent)).toEqual({ status: 200, reused: true });
      for (const s of flood.slice(1)) s.socket.close();
    } finally {
      agent.destroy();
      await app.close();
    }
  });
});
