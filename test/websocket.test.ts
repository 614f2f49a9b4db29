import { describe, expect, it, onTestFinished } from 'vitest';
import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import WebSocket from 'ws';
import type { RunningApp } from '../src/app/start.js';
import { privateDatabase, startTestServer, TEST_KEY } from './helpers/server.js';
import { keysCli } from './helpers/process.js';
import { wsClient } from './helpers/transports.js';
import { until, within as waitWithin } from './helpers/wait.js';
import { rawSocket, type RawSocket } from './helpers/raw-socket.js';
import { movableClock } from './helpers/clock.js';
import { VERSION_CHECK_MS } from '../src/auth/guard.js';

/**
 * GraphQL over WebSocket (graphql-transport-ws) against the bundle: clients nobody here wrote
 * (Apollo Client's GraphQLWsLink, the graphql-ws client) and raw sockets for what the protocol
 * says about keys, time-outs and limits. The rules every transport shares are in
 * transports.test.ts.
 */

const wsUrl = (app: RunningApp) => `${app.url.replace(/^http/, 'ws')}/graphql`;

/** `promise`, or a failure saying what did not happen, within 20 s. */
const within = <T>(promise: Promise<T>, what: () => string, ms = 20_000) => waitWithin(promise, what, ms);

/** How a raw socket closed, waited for within the bound above. */
const closing = (s: RawSocket) => within(s.closed, () => `the socket to close; it received ${JSON.stringify(s.messages).slice(0, 300)}`);

/**
 * A server of the test's own: its own clock (moved only by the test), its own cap of two streams
 * per key, and no socket of another test still counted against it.
 */
async function wsServer() {
  const clock = movableClock('2027-01-15T12:00:00Z');
  const app = await startTestServer({ privateDb: true, now: clock.now, config: { streams: { perKey: 2, total: 50, maxLifetimeMs: 3_600_000 } } });
  onTestFinished(() => app.close());
  return { app, clock };
}

describe('GraphQL over WebSocket', () => {
  it("Apollo Client's GraphQLWsLink: a query, and a subscription that hears the sync run a mutation over the same socket starts", async () => {
    const { app } = await wsServer();
    const client = new ApolloClient({ link: new GraphQLWsLink(wsClient(app)), cache: new InMemoryCache() });
    const zip = await client.query({ query: gql`query { zip(zip: "05401") { city } }` });
    expect(zip.data).toEqual({ zip: { __typename: 'Zip', city: 'Burlington' } });

    const states: string[] = [];
    const heard = new Promise<void>((resolve, reject) => {
      const sub = client.subscribe({ query: gql`subscription { syncProgress { state } }` }).subscribe({
        next: (r) => {
          states.push((r.data as { syncProgress: { state: string } }).syncProgress.state);
          // The status now, then the run it started, then its end.
          if (states.length === 1) void client.mutate({ mutation: gql`mutation { runSync { state } }` }).catch(reject);
          if (states.length > 1 && states.at(-1) === 'IDLE') {
            sub.unsubscribe();
            resolve();
          }
        },
        error: reject,
      });
    });
    await within(heard, () => `the run heard to its end; states so far ${JSON.stringify(states)}`);
    expect(states[0]).toBe('IDLE');
    expect(states).toContain('RUNNING');
    await client.stop();
  });

  it('the key may come in the upgrade request’s header instead of connectionParams', async () => {
    const { app } = await wsServer();
    const headerClient = (await import('graphql-ws')).createClient({
      url: wsUrl(app),
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols: string | string[]) {
          super(url, protocols, { headers: { 'x-api-key': TEST_KEY } });
        }
      },
      retryAttempts: 0,
    });
    const result = await within(
      new Promise((resolve, reject) =>
        headerClient.subscribe(
          { query: '{ zip(zip: "90210") { city } }' },
          // A completion with no result first is a failure (after one, a no-op).
          { next: resolve, error: reject, complete: () => reject(new Error('completed without a result')) },
        ),
      ),
      () => 'an answer over the socket',
    );
    expect(result).toMatchObject({ data: { zip: { city: 'Beverly Hills' } } });
    await headerClient.dispose();
  });

  it('no key, or a wrong one: closed with 4403 before connection_ack', async () => {
    const { app } = await wsServer();
    for (const connectionParams of [{}, { 'x-api-key': 'szg_not_a_key_anybody_has' }]) {
      const s = rawSocket(app);
      await s.opened;
      s.send({ type: 'connection_init', payload: connectionParams });
      const { code, reason } = await closing(s);
      expect(code).toBe(4403);
      expect(reason).toMatch(/API key/);
      expect(s.messages.filter((m) => m.type === 'connection_ack')).toEqual([]);
    }
  });

  it('a subscribe before connection_ack is 4401', async () => {
    const { app } = await wsServer();
    const s = rawSocket(app);
    await s.opened;
    s.send({ id: '1', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect((await closing(s)).code).toBe(4401);
  });

  it('a socket that does not send connection_init in time is closed with 4408 (on the server’s clock)', async () => {
    const { app, clock } = await wsServer();
    const s = rawSocket(app);
    await s.opened;
    clock.advance(3_001);
    expect((await closing(s)).code).toBe(4408);
  });

  it('an acknowledged socket with nothing running is closed as idle (1000) after the idle time-out; one with a subscription is not', async () => {
    const { app, clock } = await wsServer();
    const idle = rawSocket(app);
    const busy = rawSocket(app);
    await Promise.all([idle.opened, busy.opened]);
    for (const s of [idle, busy]) s.send({ type: 'connection_init', payload: { 'x-api-key': TEST_KEY } });
    await until(
      async () => idle.messages.length + busy.messages.length,
      (n) => n === 2,
    );
    busy.send({ id: 's', type: 'subscribe', payload: { query: 'subscription { syncProgress { state } }' } });
    await until(
      async () => busy.messages.filter((m) => m.type === 'next').length,
      (n) => n > 0,
    );
    clock.advance(60_001);
    expect((await closing(idle)).code).toBe(1000);
    expect(busy.socket.readyState).toBe(WebSocket.OPEN);
    busy.socket.close();
  });

  it('each socket counts against its key’s streams with SSE: over the cap, closed with 1013', async () => {
    const { app } = await wsServer();
    const sse = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': TEST_KEY },
      body: JSON.stringify({ query: 'subscription { syncProgress { state } }' }),
    });
    expect(sse.status).toBe(200);
    const first = rawSocket(app);
    await first.opened;
    first.send({ type: 'connection_init', payload: { 'x-api-key': TEST_KEY } });
    await until(
      async () => first.messages.length,
      (n) => n === 1,
    );
    expect(first.messages[0]).toEqual({ type: 'connection_ack' });
    const second = rawSocket(app);
    await second.opened;
    second.send({ type: 'connection_init', payload: { 'x-api-key': TEST_KEY } });
    const { code, reason } = await closing(second);
    expect(code).toBe(1013);
    expect(reason).toMatch(/streams/);
    await sse.body!.cancel();
    first.socket.close();
  });

  it('an origin CORS_ORIGINS does not allow, and any path but /graphql, are refused before the handshake', async () => {
    const strict = await startTestServer({ config: { corsOrigins: ['https://app.example'] } });
    try {
      const evil = rawSocket(strict, { headers: { origin: 'https://evil.example' } });
      await expect(evil.opened).rejects.toThrow(/403/);
      const ok = rawSocket(strict, { headers: { origin: 'https://app.example' } });
      await ok.opened;
      ok.socket.close();
      const elsewhere = rawSocket(strict, { path: '/api/zip/90210' });
      await expect(elsewhere.opened).rejects.toThrow(/404/);
    } finally {
      await strict.close();
    }
  });
});

describe('a WebSocket holds no key past its revocation, and counts every operation', () => {
  it('each operation is a request of its key: revoked meanwhile, the next one is refused and the socket closed with 4403', async () => {
    const dbPath = privateDatabase('gateway-ws-');
    const created = await keysCli(dbPath, 'create', '--name', 'ws-client');
    const key = created.stdout.match(/szg_[\w-]+/)![0];
    const clock = movableClock('2027-01-15T12:00:00Z');
    const app = await startTestServer({ dbPath, now: clock.now });
    try {
      const s = rawSocket(app);
      await s.opened;
      s.send({ type: 'connection_init', payload: { 'x-api-key': key } });
      await until(
        async () => s.messages.length,
        (n) => n === 1,
      );
      s.send({ id: 'a', type: 'subscribe', payload: { query: '{ zip(zip: "90210") { city } }' } });
      await until(
        async () => s.messages.filter((m) => m.type === 'complete').length,
        (n) => n === 1,
      );
      expect(s.messages.find((m) => m.type === 'next').payload.data).toEqual({ zip: { city: 'Beverly Hills' } });
      expect((await keysCli(dbPath, 'revoke', 'ws-client')).status).toBe(0);
      // The server looks for other processes' writes every VERSION_CHECK_MS of its clock: that much
      // has passed, however fast the command ran.
      clock.advance(VERSION_CHECK_MS);
      s.send({ id: 'b', type: 'subscribe', payload: { query: '{ zip(zip: "90210") { city } }' } });
      const { code } = await closing(s);
      expect(code).toBe(4403);
      expect(s.messages.filter((m) => m.id === 'b' && m.type === 'next')).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('over its per-second rate, an operation is refused with RATE_LIMITED (the connection counted as one request)', async () => {
    const key = 'szg_ws_rate_limited_key_0123456789';
    const app = await startTestServer({ now: () => new Date('2027-01-15T12:00:00.500Z'), config: { apiKeys: [TEST_KEY, key], apiKeysRate: 2 } });
    try {
      const s = rawSocket(app);
      await s.opened;
      s.send({ type: 'connection_init', payload: { 'x-api-key': key } });
      await until(
        async () => s.messages.length,
        (n) => n === 1,
      );
      for (const id of ['1', '2']) s.send({ id, type: 'subscribe', payload: { query: '{ __typename }' } });
      await until(
        async () => s.messages.filter((m) => m.type === 'complete' || m.type === 'error').length,
        (n) => n === 2,
      );
      expect(s.messages.find((m) => m.id === '1' && m.type === 'next').payload.data).toEqual({ __typename: 'Query' });
      expect(s.messages.find((m) => m.id === '2')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'RATE_LIMITED' } }] });
      s.socket.close();
    } finally {
      await app.close();
    }
  });
});
