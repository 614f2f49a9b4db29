import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import fc from 'fast-check';
import type { RunningApp } from '../src/app/start.js';
import { expectProblem, getJson, privateDatabase, startTestServer, TEST_KEY, type HttpResult } from './helpers/server.js';
import { spawnServer } from './helpers/process.js';
import { bundle } from './helpers/bundle.js';
import { until } from './helpers/wait.js';

/**
 * One ordinary key playing the attacker against the bundle: event streams, memory, nesting, odd
 * requests, and a crash. Each case here failed on the server before these bounds existed.
 */

const sse = (url: string, key: string, signal?: AbortSignal) =>
  fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ query: 'subscription { syncProgress { state } }' }),
    signal,
  });

/**
 * Reads a stream until it ends or its connection is cut: what ended it, and what came before.
 * `limit` is the request's own signal: a stream still open when it aborts is a failure, not a cut.
 */
async function endOf(res: Response, limit: AbortSignal): Promise<{ end: 'ended' | 'cut'; text: string }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { end: 'ended', text };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    if (limit.aborted) throw new Error(`the stream was still open when the test's limit came: ${JSON.stringify(text.slice(0, 300))}`);
    return { end: 'cut', text };
  }
}

describe('event streams are bounded per key, in all, and in time', () => {
  let app: RunningApp;
  const keys = ['szg_stream_key_a', 'szg_stream_key_b', 'szg_stream_key_c'];
  beforeAll(async () => {
    app = await startTestServer({ config: { apiKeys: keys, apiKeysRate: 1000, streams: { perKey: 3, total: 5, maxLifetimeMs: 60_000 } } });
  });
  afterAll(() => app?.close());

  it('a key past its share gets 429 problem+json; others are still served; a closed stream frees its slot', async () => {
    const aborts = [new AbortController(), new AbortController(), new AbortController()];
    const held = await Promise.all(aborts.map((a) => sse(app.url, keys[0]!, a.signal)));
    expect(held.map((r) => r.status)).toEqual([200, 200, 200]);
    const refused = await getJson(app, '/graphql', {
      method: 'POST',
      apiKey: keys[0]!,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { syncProgress { state } }' }),
    });
    const problem = expectProblem(refused, 429);
    expect(problem.code).toBe('TOO_MANY_STREAMS');
    expect(problem.errors?.[0]).toMatchObject({ name: 'streams', bound: 'at most 3 open at once per key' });
    // Everyone else is served: the probe, an ordinary request of the same key, another key's stream.
    expect((await fetch(`${app.url}/livez`)).status).toBe(200);
    expect((await getJson(app, '/api/zip/90210', { apiKey: keys[0]! })).status).toBe(200);
    const other = new AbortController();
    expect((await sse(app.url, keys[1]!, other.signal)).status).toBe(200);
    // Closing one stream of the first key lets it open another.
    aborts[0]!.abort();
    await held[0]!.body?.cancel().catch(() => {});
    let again: Response | null = null;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      await again?.body?.cancel().catch(() => {});
      again = await sse(app.url, keys[0]!);
    }
    expect(again!.status).toBe(200);
    for (const a of [...aborts, other]) a.abort();
    await again!.body!.cancel();
  });

  it('past the total (below the connection cap) a stream is 503, and ordinary requests still answer', async () => {
    // A server of its own: the streams of the test before may still be closing on the other.
    const app = await startTestServer({ config: { apiKeys: keys, apiKeysRate: 1000, streams: { perKey: 3, total: 5, maxLifetimeMs: 60_000 } } });
    onTestFinished(() => app.close());
    const aborts = Array.from({ length: 5 }, () => new AbortController());
    const opened = await Promise.all(aborts.map((a, i) => sse(app.url, keys[i % 3]!, a.signal)));
    expect(opened.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await getJson(app, '/graphql', {
      method: 'POST',
      apiKey: keys[2]!,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { syncProgress { state } }' }),
    });
    expect(expectProblem(refused, 503).code).toBe('TOO_MANY_STREAMS');
    expect((await getJson(app, '/api/states', { apiKey: keys[2]! })).status).toBe(200);
    for (const a of aborts) a.abort();
  });

  it('a stream is closed when its lifetime is over (the client reconnects)', async () => {
    const lifetime = 1000;
    // One stream per key: the next one is admitted only if the cut stream's slot was given back.
    const short = await startTestServer({ config: { apiKeys: [TEST_KEY], streams: { perKey: 1, total: 4, maxLifetimeMs: lifetime } } });
    try {
      const limit = AbortSignal.timeout(20_000);
      // The lifetime is a timer of the server (not its clock): measured from before the request, a
      // lower bound that load only lengthens (timers count whole milliseconds, hence the 1 ms).
      const sent = performance.now();
      const res = await sse(short.url, TEST_KEY, limit);
      expect(res.status).toBe(200);
      const { end, text } = await endOf(res, limit);
      const lived = performance.now() - sent;
      // The server closes the connection under it (its lifetime is a cap, not a message), and not before.
      expect(end).toBe('cut');
      expect(lived).toBeGreaterThan(lifetime - 1);
      // It was a stream serving its subscription until then: its first event came, no end was sent.
      expect(text).toMatch(/^event: next\ndata: .*"syncProgress":\{"state":"IDLE"\}/m);
      expect(text).not.toContain('event: complete');
      // Its slot is free again.
      const next = await sse(short.url, TEST_KEY);
      expect(next.status).toBe(200);
      await next.body!.cancel();
    } finally {
      await short.close();
    }
  });
});

describe('when every connection is busy, a stream gives way', () => {
  it('the oldest stream of the key holding the most is closed for a new connection; the others stay open', async () => {
    const { loadConfig } = await bundle();
    const [a, b] = ['szg_give_way_a', 'szg_give_way_b'];
    const base = loadConfig({});
    const app = await startTestServer({
      config: {
        apiKeys: [a, b],
        apiKeysRate: 1000,
        connections: { ...base.connections, maxConnections: 6 },
        streams: { perKey: 4, total: 5, maxLifetimeMs: 600_000 },
      },
    });
    const aborts: AbortController[] = [];
    const open = async (key: string) => {
      const controller = new AbortController();
      aborts.push(controller);
      const res = await sse(app.url, key, controller.signal);
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read();
      return reader;
    };
    try {
      // Key a holds three streams (the first opened is its oldest), key b two: five connections.
      const [a1, a2, a3] = [await open(a), await open(a), await open(a)];
      const [b1, b2] = [await open(b), await open(b)];
      // A sixth connection, busy too: a request whose body has not all arrived.
      const busy = net.connect(app.port, '127.0.0.1');
      busy.on('error', () => {});
      onTestFinished(() => void busy.destroy());
      await new Promise((resolve) => busy.once('connect', resolve));
      // 100-continue: the server answers it once it has read the head, so the request is surely in flight.
      const continued = new Promise((resolve) => busy.once('data', resolve));
      busy.write(
        `POST /graphql HTTP/1.1\r\nhost: x\r\nx-api-key: ${b}\r\ncontent-type: application/json\r\ncontent-length: 100\r\nexpect: 100-continue\r\n\r\n`,
      );
      expect(String(await continued)).toMatch(/^HTTP\/1\.1 100 /);
      expect(app.openConnections()).toBe(6);
      // A seventh: nothing is idle, so a's oldest stream makes room, and the newcomer is answered.
      const status = await new Promise<number>((resolve, reject) =>
        http
          .get(`${app.url}/api/zip/90210`, { agent: false, headers: { 'x-api-key': b } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          })
          .on('error', reject),
      );
      expect(status).toBe(200);
      const ended = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
        try {
          for (;;) if ((await reader.read()).done) return;
        } catch {
          return;
        }
      };
      // The first (and only) stream to end is a's oldest.
      const readers = { a1, a2, a3, b1, b2 };
      const first = await Promise.race(Object.entries(readers).map(([name, reader]) => ended(reader).then(() => name)));
      expect(first).toBe('a1');
      // The four others and the busy request hold their connections (the newcomer's has closed).
      await until(
        async () => app.openConnections(),
        (n) => n === 5,
      );
    } finally {
      for (const c of aborts) c.abort();
      await app.close();
    }
  });
});

describe('heartbeats', () => {
  it('a stream carries a heartbeat comment at the configured interval; 12 s by default, as the docs say', async () => {
    const { loadConfig } = await bundle();
    const base = loadConfig({});
    expect(base.graphql.heartbeatMs).toBe(12_000);
    const app = await startTestServer({ config: { apiKeys: [TEST_KEY], graphql: { ...base.graphql, heartbeatMs: 20 } } });
    const controller = new AbortController();
    try {
      const res = await sse(app.url, TEST_KEY, controller.signal);
      const reader = res.body!.getReader();
      let text = '';
      while (!/^:/m.test(text)) {
        const { done, value } = await reader.read();
        expect(done).toBe(false);
        text += new TextDecoder().decode(value);
      }
      expect(text).toMatch(/^:\n\n/m);
    } finally {
      controller.abort();
      await app.close();
    }
  });
});

describe('JSON nesting is bounded before anything walks it', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer();
  });
  afterAll(() => app?.close());

  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const post = (body: string, type = 'application/json') => getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': type }, body });

  it('variables nested 5,000 deep are a 400 naming the bound, on every way into /graphql', async () => {
    const deep = nested(5000);
    const cases: [string, Promise<HttpResult>][] = [
      ['json', post(`{"query":"query($v: ResortFilter) { resorts(filter: $v) { total } }","variables":{"v":${deep}}}`)],
      ['graphql+json', post(`{"query":"{ __typename }","variables":${deep}}`, 'application/graphql+json')],
      ['extensions', post(`{"query":"{ __typename }","extensions":${deep}}`)],
      // (A URL carries less: 40 levels, past the bound, in the query string.)
      ['GET variables', getJson(app, `/graphql?query=${encodeURIComponent('{ __typename }')}&variables=${encodeURIComponent(nested(40))}`)],
      ['GET extensions', getJson(app, `/v1/graphql?query=${encodeURIComponent('{ __typename }')}&extensions=${encodeURIComponent(nested(40))}`)],
    ];
    for (const [name, request] of cases) {
      const r = await request;
      const problem = expectProblem(r, 400);
      expect(problem.errors?.[0]?.bound, name).toBe('JSON nested at most 32 levels deep');
      expect(JSON.stringify(r.body)).not.toMatch(/stack|Maximum call/i);
    }
  });

  it('fuzzed: any nesting gives an answer, never a 500; past 32 levels a 400', async () => {
    const shape = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'large', withCrossShrink: true }, fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null), tie('object'), tie('array')),
      object: fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 2 }),
      array: fc.array(tie('value'), { maxLength: 2 }),
    }));
    await fc.assert(
      fc.asyncProperty(shape.value, fc.integer({ min: 0, max: 80 }), async (inner, wrap) => {
        // A function, not a string: a replacement string reads $` and $& in the generated text as patterns.
        const variables = JSON.parse(nested(wrap).replace('1', () => JSON.stringify(inner) || 'null'));
        const r = await post(
          JSON.stringify({ query: 'query($f: ResortFilter) { resorts(filter: $f, paging: { limit: 1 }) { total } }', variables: { f: variables } }),
        );
        expect(r.status).toBeLessThan(500);
        // The body itself and `variables` are two levels around the wrapping.
        if (wrap + 2 > 32) expect(r.status).toBe(400);
      }),
      { numRuns: 60 },
    );
  });
});

describe('odd requests get problem+json', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer();
  });
  afterAll(() => app?.close());

  it('GET /v1/graphql is served like /graphql', async () => {
    const r = await getJson(app, `/v1/graphql?query=${encodeURIComponent('{ zip(zip: "90210") { city } }')}`);
    expect(r.status).toBe(200);
    expect(r.body.data.zip.city).toBe('Beverly Hills');
  });

  it('POST /graphql as text/plain is a 415 naming the types it takes; PUT is a 405', async () => {
    const r = await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{ __typename }' });
    const problem = expectProblem(r, 415);
    expect(problem.errors?.[0]).toMatchObject({
      name: 'content-type',
      value: 'text/plain',
      bound: 'application/json, application/graphql+json, application/graphql',
    });
    expect(r.headers.get('accept-post')).toContain('application/json');
    const put = await getJson(app, '/graphql', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    expect(expectProblem(put, 405).code).toBe('METHOD_NOT_ALLOWED');
    expect(put.headers.get('allow')).toBe('GET, POST');
  });
});

describe('memory', () => {
  it('5,000 requests with distinct large variables leave the resident size where it was', async () => {
    const server = spawnServer(privateDatabase('gateway-memory-'), { API_KEYS: TEST_KEY, API_KEYS_RATE: '1000000', API_KEYS_QUOTA: '1000000000' });
    const base = await server.url;
    const rss = () => Number(readFileSync(`/proc/${server.child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024;
    // 48 KB each: 240 MB in all, which kept would be far past the bound below.
    const filler = 'x'.repeat(48_000);
    const send = (i: number) =>
      fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY },
        // 50 documents, each with ever new variables (an object: the cost analysis looks at those).
        body: JSON.stringify({ query: `{ zipStats { totalZips } } #${i % 50}`, variables: { f: { q: `${i}`, region: filler.slice(i % 97) } } }),
      }).then(async (r) => {
        expect(r.status).toBe(200);
        await r.arrayBuffer();
      });
    const batch = async (from: number, n: number) => {
      for (let i = from; i < from + n; i += 8) await Promise.all(Array.from({ length: 8 }, (_, j) => send(i + j)));
    };
    try {
      await batch(0, 500);
      const before = rss();
      await batch(500, 5_000);
      const after = rss();
      // The memo, the parse, validation and compiled-query caches are bounded in bytes: what is
      // left is the heap's own growth, not five thousand kept variables (240 MB of them).
      expect(after - before).toBeLessThan(64);
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  }, 120_000);

  it("SQLite's page caches are bounded: 256 KiB on the serving connection (what it reads per request is held in memory), 1 MiB on the writer's", async () => {
    const app = await startTestServer({ privateDb: true });
    try {
      expect(app.db.pragma('cache_size', { simple: true })).toBe(-256);
    } finally {
      await app.close();
    }
    // The background connection (keys, usage counts, sync runs) is opened the same way, without `serving`.
    const { openDatabase } = await import('../src/data/db/open.js');
    const background = openDatabase(privateDatabase('gateway-cache-size-'));
    try {
      expect(background.pragma('cache_size', { simple: true })).toBe(-1024);
    } finally {
      background.close();
    }
  });
});

describe('ready means warm', () => {
  it('once ready, the first ranking over every resort costs what a later one does: the warm-up built the snapshots', async () => {
    const app = await startTestServer({ privateDb: true, countStatements: true, now: () => new Date('2027-01-20T15:00:00Z'), config: { warmUpRounds: 1 } });
    try {
      expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
      const statementsOf = async (path: string) => {
        const before = app.statementCount();
        expect((await getJson(app, path)).status).toBe(200);
        return app.statementCount() - before;
      };
      // Different limits: neither answer comes from the response cache.
      const first = await statementsOf('/api/conditions/top-snow?limit=5');
      const later = await statementsOf('/api/conditions/top-snow?limit=6');
      expect(first).toBe(later);
    } finally {
      await app.close();
    }
  });

  it('WARM_UP_ROUNDS=0 builds nothing ahead: a ZIP lookup then reads its row from SQLite, where a warmed server has the table in memory', async () => {
    const statementsOfALookup = async (warmUpRounds: number) => {
      const app = await startTestServer({ privateDb: true, countStatements: true, config: { warmUpRounds } });
      try {
        const before = app.statementCount();
        expect((await getJson(app, '/api/zip/90210')).status).toBe(200);
        return app.statementCount() - before;
      } finally {
        await app.close();
      }
    };
    expect(await statementsOfALookup(0)).toBe((await statementsOfALookup(1)) + 1);
  });
});

describe('usage after a crash', () => {
  it("kill -9 right after a burst loses fewer requests than the key's per-second rate: the rate-th unwritten request writes them", async () => {
    const [key, probe] = ['szg_usage_crash_key', 'szg_usage_probe_key'];
    const rate = 40;
    const env = { API_KEYS: `${key},${probe}`, API_KEYS_QUOTA: '1000', API_KEYS_RATE: String(rate) };
    const get = async (base: string, k: string) => {
      const r = await fetch(`${base}/api/zip/90210`, { headers: { 'x-api-key': k } });
      await r.arrayBuffer();
      return r;
    };
    /** What a key had used when the server started: its first answer's remaining quota, that answer left out. */
    const usedBy = async (base: string, k: string) => {
      const r = await get(base, k);
      expect(r.status).toBe(200);
      return 1000 - Number(r.headers.get('ratelimit-remaining')) - 1;
    };
    // Usage is also written by a once-a-second timer, which no clock of the server moves. A request
    // of a second key, far below its rate, goes first: still unwritten after the crash, it shows no
    // timer write came after it, so what the burst had written its own rate-th request wrote.
    // When the timer did come (a slow machine), the round shows nothing of that: another round.
    const rounds = 5;
    for (let round = 1; ; round++) {
      const db = privateDatabase('gateway-usage-');
      const first = spawnServer(db, env);
      try {
        const base = await first.url;
        // Connections opened first (/livez needs no key), so the burst is quick.
        await Promise.all(Array.from({ length: rate }, () => fetch(`${base}/livez`).then((r) => r.arrayBuffer())));
        expect((await get(base, probe)).status).toBe(200);
        // The key's rate at once: all answered (the first of the key; the rate is per second).
        const burst = await Promise.all(Array.from({ length: rate }, () => get(base, key)));
        expect(burst.map((r) => r.status)).toEqual(Array(rate).fill(200));
      } finally {
        first.child.kill('SIGKILL');
        await first.exited;
      }
      const second = spawnServer(db, env);
      try {
        const base = await second.url;
        const counted = await usedBy(base, key);
        // Fewer than the rate lost, whatever the timer did.
        expect(rate - counted).toBeLessThan(rate);
        expect(rate - counted).toBeGreaterThanOrEqual(0);
        if ((await usedBy(base, probe)) === 0) {
          // No timer write since the probe: the burst's rate-th request wrote all of it.
          expect(counted).toBe(rate);
          return;
        }
      } finally {
        second.child.kill('SIGKILL');
        await second.exited;
      }
      if (round === rounds) throw new Error(`the once-a-second usage timer wrote during each of ${rounds} bursts: the machine is too slow for this test`);
    }
  });
});

describe('requests without a usable key', () => {
  it('one address gets 1,000 of them answered (401) per 10 s of the server’s clock; past that, a 429 and the connection closed, so a pipelined flood stops at once', async () => {
    let t = Date.parse('2027-01-15T12:00:05Z');
    const app = await startTestServer({ now: () => new Date(t) });
    const pipelined = (count: number) =>
      new Promise<string>((resolve) => {
        const socket = net.connect({ port: app.port, host: '127.0.0.1', localAddress: '127.0.0.7' }, () =>
          // The last asks to close once answered.
          socket.write(
            Array.from(
              { length: count },
              (_, i) =>
                `GET /api/zip/05401 HTTP/1.1\r\nhost: x\r\nx-api-key: szg_not_a_key_anybody_has\r\n${i === count - 1 ? 'connection: close\r\n' : ''}\r\n`,
            ).join(''),
          ),
        );
        let out = '';
        socket.on('data', (d) => (out += d));
        socket.on('close', () => resolve(out));
        socket.on('error', () => undefined);
      });
    try {
      const answers = (await pipelined(1500)).match(/HTTP\/1\.1 \d{3}/g)!;
      expect(answers.filter((a) => a.endsWith('401'))).toHaveLength(1000);
      // Then one 429, and the connection closed: the other 499 were never answered.
      expect(answers.slice(1000)).toEqual(['HTTP/1.1 429']);
      expect((await pipelined(1)).match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 429']);
      // Another address, and the next window, are answered as before.
      expect((await getJson(app, '/api/zip/05401', { apiKey: 'szg_not_a_key_anybody_has' })).status).toBe(401);
      t += 10_000;
      expect((await pipelined(1)).match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 401']);
    } finally {
      await app.close();
    }
  });
});
