import { createHash } from 'node:crypto';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { VERSION_CHECK_MS } from '../../src/auth/guard.js';
import { rawSocket, type RawSocket } from '../helpers/raw-socket.js';
import { getJson, TEST_KEY } from '../helpers/server.js';
import { until } from './serving.js';
import { within as waitWithin } from '../helpers/wait.js';
import { keyOfItsOwn, liveSubscribers, startForTests, subscribersBecome, type KeyLimits, type SourceApp } from './app-world.js';

/**
 * GraphQL over WebSocket (transports/graphql/ws.ts) on the server built from src/, with raw
 * sockets: keys at the door and in connection_init, operations and streams, the bounds on what a
 * socket sends and leaves unread, and the sweep on the server's clock (moved by the test; the
 * sweep itself looks every 250 ms).
 */

/**
 * How long a test waits for a close or a message before it calls it missing: a failure, never a
 * hang. The server is in-process and local (answers take milliseconds, the sweep looks every
 * 250 ms), so a mutant that keeps a socket open or silent fails its test in seconds, not tens of
 * seconds (Stryker runs the file once per mutant). Not 2 s: on a starved machine (Stryker's dry
 * run beside a .ci/run) reading a burst of 1 MiB took longer; 5 s stays under Stryker's own
 * time-out for a mutant.
 */
const WAIT_MS = 5_000;
const within = <T>(promise: Promise<T>, what: string, ms = WAIT_MS) => waitWithin(promise, what, ms);
const closing = (s: RawSocket) => within(s.closed, `the socket to close; it received ${JSON.stringify(s.messages).slice(0, 300)}`);
const refusalOf = (s: RawSocket) =>
  within(
    s.opened.then(
      () => null,
      (err: { status: number; body: Record<string, unknown> }) => err,
    ),
    'the upgrade refused',
  );

const SUBSCRIPTION = 'subscription { conditionsChanged(resortIds: ["vail"]) { resortId reason } }';
/** A ping message of exactly `bytes` bytes. */
function pingOf(bytes: number): string {
  const text = JSON.stringify({ type: 'ping', payload: { junk: 'x'.repeat(bytes - JSON.stringify({ type: 'ping', payload: { junk: '' } }).length) } });
  if (text.length !== bytes) throw new Error(`a ping of ${bytes} bytes is ${text.length}`);
  return text;
}

/** A text frame as a client sends it (masked, here with a zero mask), of fewer than 126 bytes. */
const maskedText = (text: string) => Buffer.concat([Buffer.from([0x81, 0x80 | Buffer.byteLength(text), 0, 0, 0, 0]), Buffer.from(text)]);

/**
 * A client that shakes hands by hand (the key in the upgrade) and never answers a close frame:
 * the first frame it receives after the handshake, and when the server cut its connection.
 */
async function handshakeByHand(key: string) {
  const socket = net.connect(app.port, '127.0.0.1');
  let data = Buffer.alloc(0);
  socket.on('data', (d: Buffer) => void (data = Buffer.concat([data, d])));
  const cut = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(
    `GET /graphql HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
      `sec-websocket-version: 13\r\nsec-websocket-protocol: graphql-transport-ws\r\nx-api-key: ${key}\r\n\r\n`,
  );
  const after = () => data.subarray(data.indexOf('\r\n\r\n') + 4);
  await within(
    until(() => data.includes('\r\n\r\n')),
    'the handshake by hand',
  );
  expect(String(data)).toMatch(/^HTTP\/1.1 101 /);
  return {
    socket,
    cut,
    /** What it received after the handshake, as text. */
    text: () => String(after()),
    /** The first frame received after the handshake (a close frame's code and reason, unmasked). */
    frame: async () => {
      await until(() => after().length >= 2 && after().length >= 2 + (after()[1]! & 0x7f));
      return after().subarray(0, 2 + (after()[1]! & 0x7f));
    },
  };
}

/**
 * The server loads the transport with its first upgrade: here a handshake the WebSocket library
 * refuses (no Sec-WebSocket-Key), before any test, so that what ws.ts builds once (its module,
 * createGraphQLWs' setup) is counted as no test's rather than the first test's alone. It asserts
 * nothing and never throws: a mutant it meets is for the tests to find (a hook that failed would
 * skip them, and Stryker would count the mutant as surviving).
 */
async function loadTransport(server: SourceApp): Promise<void> {
  try {
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    // Read (and drop) the refusal: a socket nobody reads never sees the server's end, nor closes,
    // and each hook waited out the whole time-out.
    socket.resume();
    socket.write(
      `GET /graphql HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\nx-api-key: ${TEST_KEY}\r\n\r\n`,
    );
    await within(new Promise((resolve) => socket.on('close', resolve)), 'the first handshake answered').catch(() => undefined);
    socket.destroy();
    await within(
      until(() => server.openConnections() === 0),
      'the first connection gone',
    );
  } catch {
    // The tests find what failed (a server that did not start among it).
  }
}

let app: SourceApp;
const sockets: RawSocket[] = [];
/** A raw socket to the server, closed after the test file. */
const open = (options: Parameters<typeof rawSocket>[1] = {}) => {
  const s = bounded(rawSocket(app, options));
  sockets.push(s);
  return s;
};
/** The socket, waiting for a message at most WAIT_MS by default. */
function bounded(s: RawSocket): RawSocket {
  const next = s.next;
  s.next = (match, ms = WAIT_MS) => next(match, ms);
  return s;
}

const newKey = (limits: KeyLimits = {}) => keyOfItsOwn(app, 'graphql-ws', limits);
beforeAll(async () => {
  app = await startForTests('gateway-graphql-ws-', {
    env: { STREAMS_PER_KEY: '3', STREAM_MAX_BUFFERED_BYTES: String(64 * 1024), WS_PENDING_PER_ADDRESS: '3', WS_PENDING_MAX: '5' },
  });
  await loadTransport(app);
});
// Whatever a test did, the server logged no error.
afterEach(() => expect(app.log().filter((l) => l.level >= 50)).toEqual([]));
afterAll(async () => {
  for (const s of sockets) s.socket.terminate();
  await app?.close();
});

describe('keys', () => {
  it('a key in connection_init: acknowledged, then a query answers next and complete for its id', async () => {
    const s = open();
    await s.init(TEST_KEY);
    expect(s.messages).toEqual([{ type: 'connection_ack' }]);
    s.send({ id: 'q', type: 'subscribe', payload: { query: 'query($z: String!) { zip(zip: $z) { city } }', variables: { z: '90210' } } });
    await s.next((m) => m.id === 'q' && m.type === 'complete');
    const next = s.messages.find((m) => m.id === 'q' && m.type === 'next');
    expect(next.payload.data).toEqual({ zip: { city: 'Beverly Hills' } });
    expect(next.payload.extensions.requestId).toMatch(/:q$/);
    s.socket.close();
  });

  it('as a bearer token in connection_init, or in the upgrade’s headers (then connection_init needs none)', async () => {
    const bearer = open();
    await bearer.opened;
    bearer.send({ type: 'connection_init', payload: { authorization: `Bearer ${TEST_KEY}` } });
    await bearer.next((m) => m.type === 'connection_ack');
    const header = open({ headers: { 'x-api-key': TEST_KEY } });
    await header.init(null);
    header.send({ id: '1', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect((await header.next((m) => m.id === '1' && m.type === 'next')).payload.data).toEqual({ __typename: 'Query' });
    for (const s of [bearer, header]) s.socket.close();
  });

  it('no key, or a wrong one: closed with 4403 before connection_ack; a wrong one in the upgrade is 401 before the handshake', async () => {
    for (const payload of [{}, { 'x-api-key': 'szg_not_a_key_anybody_has' }]) {
      const s = open();
      await s.opened;
      s.send({ type: 'connection_init', payload });
      const { code, reason } = await closing(s);
      expect(code).toBe(4403);
      expect(reason).toMatch(/API key/);
      expect(s.messages).toEqual([]);
    }
    const wrong = open({ headers: { 'x-api-key': 'szg_not_a_key_anybody_has' } });
    expect(await refusalOf(wrong)).toMatchObject({ status: 401, body: { code: 'UNAUTHENTICATED' } });
  });

  it('with a key in the upgrade, connection_init may carry no payload; one naming another key has it checked (4403); `Authorization` is read capitalised too', async () => {
    const bare = open({ headers: { 'x-api-key': TEST_KEY } });
    await bare.opened;
    bare.send({ type: 'connection_init' });
    await bare.next((m) => m.type === 'connection_ack');
    const other = open({ headers: { 'x-api-key': TEST_KEY } });
    await other.opened;
    other.send({ type: 'connection_init', payload: { 'x-api-key': 'szg_not_a_key_anybody_has' } });
    expect(await closing(other)).toMatchObject({ code: 4403 });
    expect(other.messages).toEqual([]);
    const capital = open();
    await capital.opened;
    capital.send({ type: 'connection_init', payload: { Authorization: `Bearer ${TEST_KEY}` } });
    await capital.next((m) => m.type === 'connection_ack');
    for (const s of [bare, capital]) s.socket.close();
  });

  it('each operation is a request of its key: over its rate, an error for its id and the socket stays; the key the upgrade carried is not counted again at connection_init', async () => {
    const { key } = newKey({ ratePerSecond: 1 });
    // The upgrade is the key's one request this second; connection_init naming the same key is not another.
    const s = open({ headers: { 'x-api-key': key } });
    await s.init(key);
    s.send({ id: 'op', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await s.next((m) => m.id === 'op')).toEqual({
      id: 'op',
      type: 'error',
      payload: [{ message: 'Rate limit of 1 requests per second exceeded.', extensions: { code: 'RATE_LIMITED' } }],
    });
    // A second later the same id runs (the refused one ended).
    app.clock.advance(1_000);
    s.messages.length = 0;
    s.send({ id: 'op', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'op' && m.type === 'complete');
    expect(s.messages.filter((m) => m.id === 'op').map((m) => m.type)).toEqual(['next', 'complete']);
    s.socket.close();
  });

  it('a key revoked while its socket streams: each operation gets an error naming why, then the socket closes with 4403', async () => {
    const { key, revoke } = newKey();
    const s = open();
    await s.init(key);
    for (const id of ['s1', 's2']) {
      s.send({ id, type: 'subscribe', payload: { query: SUBSCRIPTION } });
      await s.next((m) => m.id === id && m.type === 'next');
    }
    revoke();
    const detail = 'The API key has been revoked.';
    expect(await closing(s)).toEqual({ code: 4403, reason: detail });
    expect(s.messages.filter((m) => m.type === 'error')).toEqual(
      ['s1', 's2'].map((id) => ({ id, type: 'error', payload: [{ message: detail, extensions: { code: 'UNAUTHENTICATED' } }] })),
    );
  });

  it('a subscribe before connection_ack is 4401', async () => {
    const s = open();
    await s.opened;
    s.send({ id: '1', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await closing(s)).toEqual({ code: 4401, reason: 'Unauthorized' });
  });

  it('a subscribe for a key revoked a moment ago closes the socket with 4403, nothing sent for its id', async () => {
    const { key, revoke } = newKey();
    const s = open();
    await s.init(key);
    revoke();
    // The key check looks at the database again after VERSION_CHECK_MS of the server's clock.
    app.clock.advance(VERSION_CHECK_MS);
    s.send({ id: 'op', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await closing(s)).toEqual({ code: 4403, reason: 'The API key has been revoked.' });
    expect(s.messages).toEqual([{ type: 'connection_ack' }]);
  });
});

describe('operations', () => {
  it('a subscription: its first event, more operations beside it, complete from the client ends it; the id is free again after', async () => {
    const s = open();
    await s.init(TEST_KEY);
    s.send({ id: 'live', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    const first = await s.next((m) => m.id === 'live' && m.type === 'next');
    expect(first.payload.data).toEqual({ conditionsChanged: { resortId: 'vail', reason: 'INITIAL' } });
    // The same id again while it runs: 4409.
    s.send({ id: 'q', type: 'subscribe', payload: { query: '{ zipStats { totalZips } }' } });
    await s.next((m) => m.id === 'q' && m.type === 'complete');
    s.send({ id: 'live', type: 'complete' });
    s.send({ id: 'after', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'after' && m.type === 'complete');
    s.send({ id: 'live', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'live' && m.type === 'complete');
    s.socket.close();
  });

  it('a subscription ends with the client’s complete, or with its socket: the live feed loses the subscriber', async () => {
    const before = await liveSubscribers(app);
    const s = open();
    await s.init(TEST_KEY);
    s.send({ id: 'a', type: 'subscribe', payload: { query: 'subscription { conditionsChanged(resortIds: ["alta"]) { resortId } }' } });
    await s.next((m) => m.id === 'a' && m.type === 'next');
    await subscribersBecome(app, before + 1);
    s.send({ id: 'a', type: 'complete' });
    await subscribersBecome(app, before);
    s.send({ id: 'b', type: 'subscribe', payload: { query: 'subscription { conditionsChanged(resortIds: ["alta"]) { resortId } }' } });
    await s.next((m) => m.id === 'b' && m.type === 'next');
    await subscribersBecome(app, before + 1);
    s.socket.close();
    await closing(s);
    await subscribersBecome(app, before);
  });

  it('an id still running taken again closes the socket with 4409; a long id is named by its first 64 characters, here and in the request id', async () => {
    const s = open();
    await s.init(TEST_KEY);
    const id = `${'x'.repeat(64)}-and-more`;
    s.send({ id: 'q', type: 'subscribe', payload: { query: '{ __typename }' } });
    s.send({ id, type: 'subscribe', payload: { query: SUBSCRIPTION } });
    const first = await s.next((m) => m.id === id && m.type === 'next');
    expect(first.payload.extensions.requestId).toMatch(new RegExp(`:${'x'.repeat(64)}$`));
    s.send({ id, type: 'subscribe', payload: { query: SUBSCRIPTION } });
    expect(await closing(s)).toEqual({ code: 4409, reason: `Subscriber for ${'x'.repeat(64)} already exists` });
  });

  it('a close reason is cut to 123 bytes at a character: exactly 123 kept whole, past that 120 bytes and "...", a character cut in two left out', async () => {
    const euros = (n: number) => '€'.repeat(n);
    for (const [id, reason] of [
      // 15 + 93 + 15 bytes.
      [euros(31), `Subscriber for ${euros(31)} already exists`],
      // 15 + 2 + 34 × 3 bytes, and one byte of the 35th euro.
      [`é${euros(63)}`, `Subscriber for é${euros(34)}...`],
      // 15 + 3 + 34 × 3 bytes: a replacement character of the id's own stays.
      [`\uFFFD${euros(63)}`, `Subscriber for \uFFFD${euros(34)}...`],
    ]) {
      const s = open();
      await s.init(TEST_KEY);
      s.send({ id, type: 'subscribe', payload: { query: SUBSCRIPTION } });
      await s.next((m) => m.id === id && m.type === 'next');
      s.send({ id, type: 'subscribe', payload: { query: SUBSCRIPTION } });
      expect(await closing(s)).toEqual({ code: 4409, reason });
    }
  });

  it('an automatic persisted query over the socket: its hash alone is not found, its text with the hash runs and keeps it, then its hash alone runs it', async () => {
    const s = open();
    await s.init(TEST_KEY);
    const query = '{ zipStats { totalZips } __typename }';
    const extensions = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') } };
    s.send({ id: 'hash', type: 'subscribe', payload: { extensions } });
    expect(await s.next((m) => m.id === 'hash')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    s.send({ id: 'text', type: 'subscribe', payload: { query, extensions } });
    await s.next((m) => m.id === 'text' && m.type === 'complete');
    s.messages.length = 0;
    s.send({ id: 'hash', type: 'subscribe', payload: { extensions } });
    await s.next((m) => m.id === 'hash' && m.type === 'complete');
    expect(s.messages.find((m) => m.type === 'next').payload.data).toEqual({ zipStats: { totalZips: 40977 }, __typename: 'Query' });
    s.socket.close();
  });

  it('a refused operation is an error for its id; the socket stays', async () => {
    const s = open();
    await s.init(TEST_KEY);
    s.send({ id: 'bad', type: 'subscribe', payload: { query: '{ nope }' } });
    const error = await s.next((m) => m.id === 'bad');
    expect(error).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
    // A complete for an id that is not running is nothing.
    s.send({ id: 'never', type: 'complete' });
    // The refused operation has ended: its id runs again.
    s.send({ id: 'bad', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'bad' && m.type === 'complete');
    s.send({ id: 'nf', type: 'subscribe', payload: { query: 'subscription { conditionsChanged(resortIds: ["nowhere"]) { resortId } }' } });
    const nf = await s.next((m) => m.id === 'nf' && (m.type === 'error' || m.type === 'next'));
    expect(JSON.stringify(nf.payload)).toMatch(/NOT_FOUND/);
    // A persisted document named without its text runs as over HTTP: unknown, so not found.
    s.send({ id: 'doc', type: 'subscribe', payload: { documentId: 'sha256:0000' } });
    expect(await s.next((m) => m.id === 'doc')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    s.send({ id: 'ok', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'ok' && m.type === 'complete');
    expect(s.socket.readyState).toBe(WebSocket.OPEN);
    s.socket.close();
  });

  it('@defer: each part as a next of its id, then complete', async () => {
    const s = open();
    await s.init(TEST_KEY);
    s.send({ id: 'd', type: 'subscribe', payload: { query: '{ zipStats { totalZips } ... @defer { zip(zip: "90210") { city } } }' } });
    await s.next((m) => m.id === 'd' && m.type === 'complete');
    const parts = s.messages.filter((m) => m.id === 'd' && m.type === 'next').map((m) => m.payload);
    expect(parts[0]).toMatchObject({ data: { zipStats: { totalZips: 40977 } }, hasNext: true });
    expect(parts.at(-1)).toMatchObject({ hasNext: false });
    expect(JSON.stringify(parts)).toContain('Beverly Hills');
    s.socket.close();
  });

  it('the last stream a socket ends leaves its place to the socket, which still holds it; a key sent at connection_init gives back the upgrade’s key’s place', async () => {
    const { key } = newKey({ streams: 2 });
    const x = open();
    await x.init(key);
    x.send({ id: 's', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await x.next((m) => m.id === 's' && m.type === 'next');
    x.send({ id: 's', type: 'complete' });
    x.send({ type: 'ping' });
    await x.next((m) => m.type === 'pong');
    // A socket whose upgrade named the key and whose connection_init names another gives the key's place back.
    const other = open({ headers: { 'x-api-key': key } });
    await other.init(TEST_KEY);
    const y = open();
    await y.init(key);
    // x and y hold the key's two places.
    const z = open();
    await z.opened;
    z.send({ type: 'connection_init', payload: { 'x-api-key': key } });
    expect((await closing(z)).code).toBe(1013);
    for (const s of [x, other, y]) s.socket.close();
  });

  it('a socket counts as one of its key’s streams, its first subscription in the same place; past the key’s streams an operation’s error, then the socket is refused with 1013', async () => {
    const a = open();
    await a.init(TEST_KEY);
    const b = open();
    await b.init(TEST_KEY);
    // Two sockets, two places; a's first subscription takes a's own place, its second the third place.
    a.send({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await a.next((m) => m.id === '1' && m.type === 'next');
    a.send({ id: '2', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await a.next((m) => m.id === '2' && m.type === 'next');
    a.send({ id: '3', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    expect(await a.next((m) => m.id === '3')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'TOO_MANY_STREAMS' } }] });
    const c = open();
    await c.opened;
    c.send({ type: 'connection_init', payload: { 'x-api-key': TEST_KEY } });
    const { code, reason } = await closing(c);
    // The refusal's detail, cut to a close frame's 123 bytes.
    const detail = 'This key already holds 3 open streams (SSE, multipart, WebSocket subscriptions, MCP sessions), the most it may hold; close one first.';
    expect(Buffer.byteLength(detail)).toBeGreaterThan(123);
    expect([code, reason]).toEqual([1013, `${Buffer.from(detail).subarray(0, 120).toString()}...`]);
    // Completing one (the first still streaming) gives its place back to the key: another socket is
    // let in, and a third subscription is refused again.
    a.send({ id: '2', type: 'complete' });
    a.send({ type: 'ping' });
    await a.next((m) => m.type === 'pong');
    const d = open();
    await d.init(TEST_KEY);
    a.messages.length = 0;
    a.send({ id: '3', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    expect(await a.next((m) => m.id === '3')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'TOO_MANY_STREAMS' } }] });
    // Its last subscription completed, the socket keeps that place: a subscription runs in it (the
    // refused one's id free again).
    a.send({ id: '1', type: 'complete' });
    a.messages.length = 0;
    a.send({ id: '3', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    expect(await a.next((m) => m.id === '3')).toMatchObject({ type: 'next' });
    // A socket closing gives back every place it held.
    a.socket.close();
    await closing(a);
    b.send({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await b.next((m) => m.id === '1' && m.type === 'next');
    b.send({ id: '2', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await b.next((m) => m.id === '2' && m.type === 'next');
    for (const s of [b, d]) s.socket.close();
  });
});

describe('what a socket sends', () => {
  it('every ping is answered with a pong, not only the first (once the last pong has gone out), echoing a small payload only', async () => {
    const s = open();
    await s.init(TEST_KEY);
    s.send({ type: 'ping', payload: { at: 1 } });
    expect(await s.next((m) => m.type === 'pong')).toEqual({ type: 'pong', payload: { at: 1 } });
    s.messages.length = 0;
    s.send({ type: 'ping', payload: { junk: 'x'.repeat(2000) } });
    expect(await s.next((m) => m.type === 'pong')).toEqual({ type: 'pong' });
    s.messages.length = 0;
    s.send({ type: 'ping' });
    expect(await s.next((m) => m.type === 'pong')).toEqual({ type: 'pong' });
    s.messages.length = 0;
    s.send({ type: 'ping', payload: null });
    expect(await s.next((m) => m.type === 'pong')).toEqual({ type: 'pong' });
    // A pong of exactly 1024 bytes still echoes its payload.
    const edge = { junk: 'x'.repeat(1024 - JSON.stringify({ type: 'pong', payload: { junk: '' } }).length) };
    s.messages.length = 0;
    s.send({ type: 'ping', payload: edge });
    await s.next((m) => m.type === 'pong');
    expect(s.messages).toEqual([{ type: 'pong', payload: edge }]);
    // A protocol ping gets one protocol pong with its payload (ours: the library's own is off), and
    // the compression the client offered was not taken (a socket's inflate state is memory per socket).
    const pongs: string[] = [];
    s.socket.on('pong', (data: Buffer) => void pongs.push(String(data)));
    s.socket.ping('hello');
    s.messages.length = 0;
    s.send({ type: 'ping', payload: { after: 'hello' } });
    // The server answers in the order it reads: by the message's pong, every protocol pong is here.
    await s.next((m) => m.type === 'pong');
    expect(pongs).toEqual(['hello']);
    expect(s.socket.extensions).toBe('');
    s.socket.close();
  });

  it('pings read together get one pong: none while the last is unsent', async () => {
    const raw = await handshakeByHand(newKey().key);
    raw.socket.write(maskedText(JSON.stringify({ type: 'connection_init' })));
    await within(
      until(() => raw.text().includes('connection_ack')),
      'connection_ack',
    );
    // Five pings and a query in one write: read in one turn of the server's event loop.
    const query = maskedText(JSON.stringify({ id: 'q', type: 'subscribe', payload: { query: '{ __typename }' } }));
    raw.socket.write(Buffer.concat([...Array.from({ length: 5 }, () => maskedText('{"type":"ping"}')), query]));
    await within(
      until(() => raw.text().includes('"type":"complete"')),
      'the query answered',
    );
    expect(raw.text().split('{"type":"pong"}').length - 1).toBe(1);
    raw.socket.destroy();
  });

  it('before connection_ack: at most 8 messages, each at most 4 KiB (1008); protocol pings count', async () => {
    const many = open();
    await many.opened;
    for (let i = 0; i < 8; i++) {
      many.messages.length = 0;
      many.send({ type: 'ping' });
      await many.next((m) => m.type === 'pong');
    }
    many.send({ type: 'ping' });
    expect(await closing(many)).toEqual({ code: 1008, reason: 'At most 8 messages before connection_ack' });
    // Exactly 4096 bytes is still fine; 4097 is not.
    const edge = open();
    await edge.opened;
    edge.send(pingOf(4096));
    await edge.next((m) => m.type === 'pong');
    edge.socket.close();
    const large = open();
    await large.opened;
    large.send(pingOf(4097));
    expect(await closing(large)).toEqual({ code: 1008, reason: 'At most 4096 bytes a message before connection_ack' });
    const pings = open();
    await pings.opened;
    for (let i = 0; i < 9; i++) pings.socket.ping();
    expect((await closing(pings)).code).toBe(1008);
    // A large message after connection_ack is fine.
    const after = open();
    await after.init(TEST_KEY);
    after.send({ type: 'ping', payload: { junk: 'x'.repeat(5000) } });
    await after.next((m) => m.type === 'pong');
    after.socket.close();
  });

  it('at most 256 messages at once, then 64 a second on the server’s clock (1008)', async () => {
    const s = open();
    await s.init(TEST_KEY);
    for (let i = 0; i < 254; i++) s.send({ type: 'ping' });
    s.send({ id: 'read', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'read' && m.type === 'complete');
    // A second later, 64 more.
    app.clock.advance(1000);
    for (let i = 0; i < 63; i++) s.send({ type: 'ping' });
    s.send({ id: 'fits', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'fits' && m.type === 'complete');
    s.send({ id: 'late', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await closing(s)).toEqual({ code: 1008, reason: 'More than 64 messages a second sent (a burst of 256 at most)' });
  });

  it('at most a burst of 1 MiB, then 256 KiB a second on the server’s clock (1008)', async () => {
    const s = open();
    await s.init(TEST_KEY);
    const ping = JSON.stringify({ type: 'ping', payload: { junk: 'x'.repeat(90_000) } });
    for (let i = 0; i < 11; i++) s.send(ping);
    s.send({ id: 'read', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'read' && m.type === 'complete');
    app.clock.advance(1000);
    // 256 KiB more a second: two more pings fit, a fourth does not.
    for (let i = 0; i < 2; i++) s.send(ping);
    s.send({ id: 'read2', type: 'subscribe', payload: { query: '{ __typename }' } });
    await s.next((m) => m.id === 'read2' && m.type === 'complete');
    s.send(ping);
    s.send(ping);
    expect(await closing(s)).toEqual({ code: 1008, reason: 'More than 262144 bytes a second sent (a burst of 1048576 at most)' });
  });

  it('exactly the burst of 1 MiB is fine, a byte past it is not; a protocol ping costs its payload and 16 bytes more', async () => {
    for (const [room, then] of [
      [0, 'a message'],
      [140, 'a protocol ping of 125 bytes'],
    ] as const) {
      const s = open({ headers: { 'x-api-key': TEST_KEY } });
      await s.opened;
      const init = JSON.stringify({ type: 'connection_init' });
      s.send(init);
      await s.next((m) => m.type === 'connection_ack');
      const last = JSON.stringify({ id: 'last', type: 'subscribe', payload: { query: '{ __typename }' } });
      // Twelve pings (each under MAX_BODY_BYTES) fill the bucket, but for `room` bytes, with the subscribe that reads it.
      const fill = 1024 * 1024 - room - init.length - last.length;
      for (let i = 0; i < 12; i++) s.send(pingOf(i < 11 ? Math.floor(fill / 12) : fill - 11 * Math.floor(fill / 12)));
      s.send(last);
      await s.next((m) => m.id === 'last' && m.type === 'complete');
      if (room === 0) s.send({ type: 'ping' });
      else s.socket.ping(Buffer.alloc(125));
      expect(await closing(s), then).toEqual({ code: 1008, reason: 'More than 262144 bytes a second sent (a burst of 1048576 at most)' });
    }
  });

  it('not UTF-8 (1007), not a JSON object (4400), nested too deep (4400)', async () => {
    const binary = open();
    await binary.init(TEST_KEY);
    binary.socket.send(Buffer.from([0x7b, 0xff, 0x7d]), { binary: true });
    expect(await closing(binary)).toEqual({ code: 1007, reason: 'Invalid message received: not UTF-8' });
    // Larger than MAX_BODY_BYTES: the WebSocket library closes it (1009).
    const huge = open();
    await huge.init(TEST_KEY);
    huge.send(pingOf(100_001));
    expect((await closing(huge)).code).toBe(1009);
    // A subscribe without a payload object is graphql-ws' to refuse.
    for (const payload of [undefined, null]) {
      const s = open();
      await s.init(TEST_KEY);
      s.send({ id: 'p', type: 'subscribe', payload });
      expect((await closing(s)).code, String(payload)).toBe(4400);
    }
    for (const text of ['[1]', 'null', 'not json', '"text"']) {
      const s = open();
      await s.init(TEST_KEY);
      s.send(text);
      expect(await closing(s), text).toEqual({ code: 4400, reason: 'Invalid message received' });
    }
    const deep = open();
    await deep.init(TEST_KEY);
    deep.send(`{"id":"d","type":"subscribe","payload":{"query":"{ __typename }","variables":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}}`);
    expect(await closing(deep)).toEqual({ code: 4400, reason: 'Invalid message received: JSON nested too deep' });
  });

  it('a handshake the WebSocket library refuses is problem+json: 405 not a GET, 400 no key, 426 another version', async () => {
    const handshake = (request: string) =>
      within(
        new Promise<string>((resolve) => {
          const socket = net.connect(app.port, '127.0.0.1', () => socket.write(request));
          let out = '';
          socket.on('data', (d) => (out += d));
          socket.on('close', () => resolve(out));
        }),
        'the handshake answered',
      );
    const head = `host: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\nx-api-key: ${TEST_KEY}\r\n`;
    for (const [request, status, detail, header] of [
      [
        `POST /graphql HTTP/1.1\r\n${head}sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\ncontent-length: 0\r\n\r\n`,
        405,
        'A WebSocket handshake is a GET.',
        'allow: GET',
      ],
      [`GET /graphql HTTP/1.1\r\n${head}sec-websocket-version: 13\r\n\r\n`, 400, 'Missing or invalid Sec-WebSocket-Key header.', null],
      [
        `GET /graphql HTTP/1.1\r\n${head}sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 7\r\n\r\n`,
        426,
        'Missing or invalid Sec-WebSocket-Version header: this server speaks version 13.',
        'sec-websocket-version: 13',
      ],
    ] as const) {
      const answer = await handshake(request);
      const [top, body] = answer.split('\r\n\r\n');
      expect(top).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(top).toMatch(/content-type: application\/problem\+json/);
      if (header) expect(top).toContain(header);
      expect(JSON.parse(body!)).toMatchObject({ status, detail, code: { 405: 'METHOD_NOT_ALLOWED', 400: 'BAD_REQUEST', 426: 'UPGRADE_REQUIRED' }[status] });
    }
  });
});

describe('the request deadline', () => {
  let slow: SourceApp;
  beforeAll(async () => {
    // A deadline of 1 ms (swept every 10 ms): a history of 90 days x 10 years (77 simulations, each
    // its own turn of the event loop) cannot finish inside it on any machine.
    slow = await startForTests('gateway-graphql-ws-deadline-', { env: { LIVE_CHECK_MS: '100' }, config: { executionTimeoutMs: 1 } });
    // Here, not in its first test: what making the transport runs is no one test's coverage.
    await loadTransport(slow);
  });
  afterAll(() => slow?.close());
  const HISTORY = '{ resort(id: "alta") { history(days: 90, years: 10, radiusKm: 31.5) { current { snowfall } } } }';

  it('an operation past it is a TIMEOUT error for its id, its id free again at once; the socket answers on', async () => {
    const s = bounded(rawSocket(slow));
    sockets.push(s);
    await s.init(TEST_KEY);
    for (const round of [1, 2]) {
      s.messages.length = 0;
      s.send({ id: 'h', type: 'subscribe', payload: { query: HISTORY } });
      const answer = await s.next((m) => m.id === 'h');
      expect([round, answer.type, answer.payload.map((e: { message: string; extensions: unknown }) => [e.message, e.extensions])]).toEqual([
        round,
        'error',
        [['The request took longer than the 1 ms execution limit.', { code: 'TIMEOUT' }]],
      ]);
    }
    // Nothing more for its id (no complete after the error), and the socket answers on.
    s.send({ type: 'ping' });
    await s.next((m) => m.type === 'pong');
    expect([s.socket.readyState, s.messages.filter((m) => m.id === 'h').length]).toEqual([WebSocket.OPEN, 1]);
    s.socket.close();
  });

  it('a subscription is not an operation it cuts: streaming, it lives past the deadline, and its changes still come', async () => {
    const s = bounded(rawSocket(slow));
    sockets.push(s);
    await s.init(TEST_KEY);
    s.send({ id: 's', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    expect((await s.next((m) => m.id === 's')).payload.data).toEqual({ conditionsChanged: { resortId: 'vail', reason: 'INITIAL' } });
    // The deadline's sweep has run since: an operation sent after the subscription passed it.
    s.send({ id: 'h', type: 'subscribe', payload: { query: HISTORY } });
    expect((await s.next((m) => m.id === 'h')).payload[0].extensions).toEqual({ code: 'TIMEOUT' });
    slow.clock.advance(3_600_000);
    expect((await s.next((m) => m.id === 's' && m.payload?.data?.conditionsChanged?.reason !== 'INITIAL')).payload.data).toEqual({
      conditionsChanged: { resortId: 'vail', reason: 'HOUR' },
    });
    expect(s.messages.filter((m) => m.id === 's').map((m) => m.type)).toEqual(['next', 'next']);
    s.socket.close();
  });
});

describe('the sweep, on the server’s clock', () => {
  it('a socket that sends no connection_init in time: 4408; one acknowledged idle past the idle time-out: 1000; one running a subscription stays', async () => {
    const late = open();
    await late.opened;
    const idle = open();
    await idle.init(TEST_KEY);
    const busy = open();
    await busy.init(TEST_KEY);
    busy.send({ id: 's', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await busy.next((m) => m.id === 's' && m.type === 'next');
    // Acknowledged 2 s after it opened: idle counts from then.
    const later = open();
    await later.opened;
    app.clock.advance(2_000);
    await later.init(TEST_KEY);
    // Opened 1 s before `late` times out: the same sweep leaves it open.
    const young = open();
    await young.opened;
    app.clock.advance(1_000);
    expect(await closing(late)).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
    young.send({ type: 'ping' });
    await young.next((m) => m.type === 'pong');
    young.socket.close();
    app.clock.advance(57_000);
    expect(await closing(idle)).toEqual({ code: 1000, reason: 'Idle' });
    // The same sweep left `later` open: it still answers.
    later.send({ type: 'ping' });
    await later.next((m) => m.type === 'pong');
    expect(busy.socket.readyState).toBe(WebSocket.OPEN);
    // Its subscription ends now: idle counts from its end, not from when it started.
    busy.send({ id: 's', type: 'complete' });
    busy.send({ type: 'ping' });
    await busy.next((m) => m.type === 'pong');
    app.clock.advance(2_000);
    expect(await closing(later)).toEqual({ code: 1000, reason: 'Idle' });
    // The same sweep left `busy` open.
    busy.messages.length = 0;
    busy.send({ type: 'ping' });
    await busy.next((m) => m.type === 'pong');
    busy.socket.close();
  });

  it('a socket we closed that does not answer the close is cut after a second of the server’s clock, and gives back its key’s place', async () => {
    const { key } = newKey({ streams: 1 });
    // A socket without a key, closed (4408) at 3 s of the clock: a sweep seen to pass.
    const marker = open();
    await marker.opened;
    app.clock.advance(2_500);
    // The key's one place, held by a client that shakes hands by hand and never answers a close.
    const mute = await handshakeByHand(key);
    mute.socket.write(maskedText('not json'));
    const frame = await within(mute.frame(), 'the close frame');
    expect([frame[0], frame.readUInt16BE(2), String(frame.subarray(4))]).toEqual([0x88, 4400, 'Invalid message received']);
    const held = () => refusalOf(open({ headers: { 'x-api-key': key } }));
    expect(await held()).toMatchObject({ status: 429, body: { code: 'TOO_MANY_STREAMS' } });
    app.clock.advance(500);
    expect((await closing(marker)).code).toBe(4408);
    // Half its grace gone: still held. Another bad message does not start the grace again.
    expect(await held()).toMatchObject({ status: 429, body: { code: 'TOO_MANY_STREAMS' } });
    mute.socket.write(maskedText('still not json'));
    expect(await held()).toMatchObject({ status: 429, body: { code: 'TOO_MANY_STREAMS' } });
    app.clock.advance(500);
    await within(mute.cut, 'the socket cut');
    const after = open({ headers: { 'x-api-key': key } });
    await after.init(null);
    after.socket.close();
  });

  it('a socket that answers no ping is dropped after two heartbeats; one that answers stays', async () => {
    const silent = open({ autoPong: false });
    await silent.init(TEST_KEY);
    const answering = open();
    await answering.init(TEST_KEY);
    for (const s of [silent, answering]) s.send({ id: 's', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await Promise.all([silent, answering].map((s) => s.next((m) => m.id === 's' && m.type === 'next')));
    const pinged = within(new Promise((resolve) => silent.socket.once('ping', resolve)), 'a ping');
    app.clock.advance(12_000);
    await pinged;
    // Until the next heartbeat the silent one is left alone: it still answers after a sweep a second
    // later (seen to pass: it cuts a socket that did not finish a close).
    const mute = await handshakeByHand(newKey().key);
    mute.socket.write(maskedText('not json'));
    await within(mute.frame(), 'the close frame');
    app.clock.advance(1_000);
    await within(mute.cut, 'the socket cut');
    silent.send({ type: 'ping' });
    await silent.next((m) => m.type === 'pong');
    answering.send({ type: 'ping' });
    await answering.next((m) => m.type === 'pong');
    app.clock.advance(12_000);
    expect((await closing(silent)).code).toBe(1006);
    expect(answering.socket.readyState).toBe(WebSocket.OPEN);
    answering.socket.close();
  });
});

describe('sockets without a key', () => {
  it('past an address’s share the upgrade is refused (429); a key passing takes the socket out of the pool', async () => {
    const mine = [];
    for (let i = 0; i < 3; i++) {
      const s = open({ from: '127.0.0.2' });
      await s.opened;
      mine.push(s);
    }
    expect(await refusalOf(open({ from: '127.0.0.2' }))).toMatchObject({ status: 429, body: { code: 'TOO_MANY_CONNECTIONS' } });
    await mine[0]!.init(TEST_KEY);
    const next = open({ from: '127.0.0.2' });
    await next.opened;
    // With the pool full (5), the oldest of the address holding the most gives way: 1013.
    const others = [open({ from: '127.0.0.3' }), open({ from: '127.0.0.4' })];
    await Promise.all(others.map((s) => s.opened));
    const newcomer = open({ from: '127.0.0.5' });
    await newcomer.opened;
    expect(await closing(mine[1]!)).toEqual({ code: 1013, reason: 'Try again later: its place was needed (no key sent yet)' });
    expect(mine[0]!.socket.readyState).toBe(WebSocket.OPEN);
    for (const s of [...mine, next, ...others, newcomer]) s.socket.close();
  });
});

/**
 * A server of the describe's own, started with the transport loaded (a first upgrade) before its
 * tests: what createGraphQLWs builds once is then counted as no test's (as for the file's server).
 */
function ownServer(prefix: string, env: NodeJS.ProcessEnv = {}): () => SourceApp {
  let own: SourceApp | undefined;
  beforeAll(async () => {
    own = await startForTests(prefix, { env });
    await loadTransport(own);
  });
  afterAll(() => own?.close());
  return () => own!;
}

describe('shutdown', () => {
  const own = ownServer('gateway-graphql-ws-stop-');
  it('every socket is told the server is going away (1001)', async () => {
    const s = bounded(rawSocket(own()));
    await s.init(TEST_KEY);
    const stopping = own().close();
    expect(await closing(s)).toEqual({ code: 1001, reason: 'Going away: the server is stopping' });
    await stopping;
  });
});

describe('at the connection cap', () => {
  const own = ownServer('gateway-graphql-ws-cap-', { MAX_CONNECTIONS: '3', MAX_STREAMS: '2' });
  it('a socket running nothing is idle and gives way to a newcomer; one running a subscription is not', async () => {
    const clients: net.Socket[] = [];
    try {
      const socketTo = (options: Parameters<typeof rawSocket>[1]) => bounded(rawSocket(own(), options));
      const busy = socketTo({ headers: { 'x-api-key': TEST_KEY } });
      await busy.init(null);
      busy.send({ id: 's', type: 'subscribe', payload: { query: SUBSCRIPTION } });
      await busy.next((m) => m.id === 's' && m.type === 'next');
      const idle = socketTo({ headers: { 'x-api-key': TEST_KEY } });
      await idle.init(null);
      // A keep-alive connection that carried a key's request, idle now, younger than both.
      const kept = net.connect(own().port, '127.0.0.1');
      clients.push(kept);
      let answer = '';
      kept.on('data', (d: Buffer) => void (answer += d));
      kept.write(`GET /api/zip/90210 HTTP/1.1\r\nhost: x\r\nx-api-key: ${TEST_KEY}\r\n\r\n`);
      await within(
        until(() => answer.includes('Beverly Hills')),
        'the keep-alive answer',
      );
      // A fourth connection: the oldest idle one of those a key vouched for makes room.
      const newcomer = net.connect(own().port, '127.0.0.1');
      clients.push(newcomer);
      expect((await closing(idle)).code).toBe(1006);
      busy.send({ type: 'ping' });
      await busy.next((m) => m.type === 'pong');
      expect(kept.destroyed).toBe(false);
      busy.socket.close();
    } finally {
      for (const c of clients) c.destroy();
    }
  });
});

// The costliest test last: a mutant another test kills never gets this far (Stryker stops at the first failure).
describe('unread bytes', () => {
  it('a socket whose unsent bytes pass STREAM_MAX_BUFFERED_BYTES is closed with 1008, naming the bound', async () => {
    const s = open();
    await s.init(TEST_KEY);
    s.pause();
    for (let i = 0; i < 12; i++) s.send({ id: `big${i}`, type: 'subscribe', payload: { query: '{ states { zipcodes(limit: 1000) { zip city } } }' } });
    expect((await getJson(app, '/api/zip/05401')).status).toBe(200);
    s.resume();
    expect(await closing(s)).toEqual({ code: 1008, reason: 'Too slow: more than 65536 bytes waited to be sent (STREAM_MAX_BUFFERED_BYTES)' });
    expect(s.messages.filter((m) => m.type === 'complete').length).toBeLessThan(12);
  });
});
