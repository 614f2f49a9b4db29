import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import type { Config } from '../src/lib/config.js';
import { clockAt, expectProblem, getJson, startTestServer, TEST_KEY } from './helpers/server.js';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.js';
import { until } from './helpers/wait.js';
import { TRANSPORTS } from './helpers/transports.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectMcp, disconnectMcp, toolText } from './helpers/mcp.js';

/**
 * No request can hold the server: each case is what an attacker with an ordinary key would try,
 * over a real server. Assertions are about order and status, never about milliseconds.
 */

const DAY = '2027-02-10';
const gqlPost = (app: RunningApp, query: string, apiKey = TEST_KEY) =>
  getJson(app, '/graphql', { method: 'POST', apiKey, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });

describe('a cost model that matches the real cost', () => {
  let app: RunningApp;
  // The request-rate window follows this clock; each request below moves it a second on.
  let now = new Date(`${DAY}T09:00:00Z`);
  beforeAll(async () => {
    // A free-plan key: 2 requests a second buys a budget of 2 x 2,000 x 10 = 40,000 units per 10 s.
    app = await startTestServer({ privateDb: true, now: () => now, config: { apiKeys: ['szg_cheap_plan'], apiKeysRate: 2, apiKeysQuota: 1e6 } });
  });
  afterAll(() => app.close());

  it('refuses the history of every resort before computing any of it, aliased or not', async () => {
    const one = await gqlPost(app, '{ resorts(paging: { limit: 200 }) { resorts { history(days: 90, years: 10, radiusKm: 13.3) { current { snowfall } } } } }');
    expect(one.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(one.body.data ?? null).toBeNull();
    const aliases = Array.from(
      { length: 15 },
      (_, i) => `a${i}: resorts(paging: { limit: 20 }) { resorts { history(days: 90, years: 10) { current { snowfall } } } }`,
    ).join(' ');
    const many = await gqlPost(app, `{ ${aliases} }`);
    expect(many.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(many.body.errors[0].message).toMatch(/complexity \d+ is over the limit of 250000/);
  });

  it('a history costs days x (years + 1) x 7 points, charged to the key: over its budget is 429 with the headers', async () => {
    const url = (r: number) => `/api/resorts/vail/history?days=90&years=10&radiusKm=${r}`;
    // 90 x 11 x 7 = 6,930 for the history, plus its fields (8,160 in all): four fit in 40,000, the fifth does not.
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof getJson>> | undefined;
    for (let i = 0; i < 6; i++) {
      const r = await getJson(app, url(5 + i), { apiKey: 'szg_cheap_plan' });
      statuses.push(r.status);
      if (r.status === 429) refused = r;
      // Stay under the key's rate of 2 requests a second: it is the cost that must say no.
      now = new Date(now.getTime() + 1000);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const p = expectProblem(refused!, 429);
    expect(p.code).toBe('RATE_LIMITED');
    expect(p.detail).toMatch(/costs \d+ and the key's cost budget of 40000 per 10 s/);
    // Budget windows are 10 s of the server's clock from 09:00:00; the last refusal came at 09:00:05.
    expect(refused!.headers.get('retry-after')).toBe('5');
    expect(refused!.headers.get('ratelimit-limit')).toBe('40000');
    // GraphQL spends the same budget, and says no the same way.
    const g = await gqlPost(
      app,
      '{ a: resort(id: "alta") { history(days: 90, years: 10, radiusKm: 7.7) { current { snowfall } } } b: resort(id: "taos") { history(days: 90, years: 10) { current { snowfall } } } }',
      'szg_cheap_plan',
    );
    expect(g.status).toBe(429);
    expect(g.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(g.headers.get('retry-after')).toBe('4');
    // The window ends on the server's clock, not the wall's: the budget is whole again at once.
    now = new Date(`${DAY}T09:00:10Z`);
    expect((await getJson(app, url(20), { apiKey: 'szg_cheap_plan' })).status).toBe(200);
  });
});

describe('an answer from the response cache costs nothing', () => {
  it('the same history asked again and again spends its cost twice (to compute, then to store it); every later one is free', async () => {
    // A budget of 2 requests/s x 6 units x 3,600 s = 43,200 units in an hour (no window turns
    // during the test, however busy the machine): five histories of 8,160.
    let now = new Date(`${DAY}T09:00:00Z`);
    const app = await startTestServer({
      privateDb: true,
      now: () => now,
      config: { apiKeys: ['szg_cached_plan'], apiKeysRate: 2, apiKeysQuota: 1e6, costBudget: { unitsPerRequest: 6, windowSeconds: 3600 } },
    });
    try {
      const get = async (radiusKm: number) => {
        // One request a second on the server's clock: the key's rate never says no, its cost does.
        now = new Date(now.getTime() + 1000);
        return getJson(app, `/api/resorts/vail/history?days=90&years=10&radiusKm=${radiusKm}`, { apiKey: 'szg_cached_plan' });
      };
      // Computed, computed and stored, then eight answers from the cache.
      const same: number[] = [];
      for (let i = 0; i < 10; i++) same.push((await get(5)).status);
      expect(same).toEqual(Array(10).fill(200));
      // 2 x 8,160 spent: three other histories still fit in 43,200, the fourth does not.
      const others: number[] = [];
      for (const r of [6, 7, 8, 9]) others.push((await get(r)).status);
      expect(others).toEqual([200, 200, 200, 429]);
    } finally {
      await app.close();
    }
  });
});

describe('heavy work does not hold cheap requests', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer({ privateDb: true, countStatements: true, now: clockAt(`${DAY}T09:00:00Z`), config: { executionTimeoutMs: 30_000 } });
  });
  afterAll(() => app.close());

  it('cheap requests sent after an expensive one are answered before it finishes', async () => {
    const heavyQuery = `{ ${['vail', 'alta', 'zermatt'].map((id, i) => `r${i}: resort(id: "${id}") { history(days: 90, years: 10, radiusKm: 9.9) { current { snowfall } } }`).join(' ')} }`;
    const order: string[] = [];
    const before = app.statementCount();
    const heavy = gqlPost(app, heavyQuery).then((r) => {
      order.push('heavy');
      return r;
    });
    // The cheap ones go once the server has started on the heavy one (it has read its resorts).
    await until(
      async () => app.statementCount(),
      (n) => n > before,
      20_000,
      1,
    );
    expect(order).toEqual([]);
    const cheap = await Promise.all(
      ['/api/zip/90210', '/api/states', '/api/zip/10001'].map((p) =>
        getJson(app, p).then((r) => {
          order.push('cheap');
          return r;
        }),
      ),
    );
    const h = await heavy;
    expect(cheap.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(h.status).toBe(200);
    expect(h.body.errors).toBeUndefined();
    expect(order).toEqual(['cheap', 'cheap', 'cheap', 'heavy']);
  });
});

describe('deadlines', () => {
  let app: RunningApp;
  beforeAll(async () => {
    // A 1 ms deadline (swept every 10 ms): a history of 90 days x 10 years (77 simulations, each
    // its own turn of the event loop) cannot finish inside it on any machine.
    app = await startTestServer({ privateDb: true, now: clockAt(`${DAY}T09:00:00Z`), config: { executionTimeoutMs: 1 } });
  });
  afterAll(() => app.close());

  it('work past the deadline is 503 TIMEOUT: problem+json on REST, a GraphQL error on /graphql, never a 500', async () => {
    const rest = await getJson(app, '/api/resorts/vail/history?days=90&years=10&radiusKm=31.5');
    const p = expectProblem(rest, 503);
    expect(p.code).toBe('TIMEOUT');
    expect(rest.headers.get('retry-after')).toBe('1');
    const g = await gqlPost(app, '{ resort(id: "alta") { history(days: 90, years: 10, radiusKm: 31.5) { current { snowfall } } } }');
    expect(g.status).toBe(503);
    expect(g.body.errors[0].extensions.code).toBe('TIMEOUT');
    expect(g.body.extensions.requestId).toBeTruthy();
  });

  // The deadline is one rule of the pipeline: every way into /graphql answers a TIMEOUT error, never
  // another failure. (Which of the two cut-offs, the sweep's 503 or a resolver's field error in a
  // 200, comes first is not fixed: see the note on issue 58.)
  for (const transport of TRANSPORTS)
    it(`work past the deadline is a TIMEOUT error over ${transport.name}`, async () => {
      const answer = await transport.send(app, { query: '{ resort(id: "alta") { history(days: 90, years: 10, radiusKm: 31.5) { current { snowfall } } } }' });
      expect(answer.body.errors?.map((e) => e.extensions?.code)).toEqual(['TIMEOUT']);
      expect(answer.body.data?.resort?.history ?? null).toBeNull();
      // A WebSocket message and an operation of a batch that came back have no status of their own;
      // a batch the sweep cut is 503 whole.
      const statuses = transport.name.startsWith('WebSocket') ? [null] : transport.name.startsWith('batch') ? [null, 503] : [200, 503];
      expect(statuses).toContain(answer.status);
    });

  it('work past the deadline is a TIMEOUT tool error over MCP (the SDK client), the session unharmed', async () => {
    const mcp = await connectMcp(app.url);
    try {
      const answer = (await mcp.client.callTool({ name: 'resort_history', arguments: { id: 'alta', days: 90, years: 10 } })) as CallToolResult;
      expect(answer.isError).toBe(true);
      expect(toolText(answer)).toMatch(/^TIMEOUT: /);
      expect((await mcp.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await disconnectMcp(mcp);
    }
  });
});

describe('upstreams are bounded', () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream({ today: DAY });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.mode = 'ok';
  });

  const meteo = (upstream: Partial<Config['upstream']> = {}): Partial<Config> => ({
    provider: 'open-meteo',
    openMeteo: { forecast: `${fake.url}/v1/forecast`, archive: `${fake.url}/v1/archive` },
    upstream: { timeoutMs: 200, retries: 1, concurrency: 4, backoffMs: 5, resetTimeoutMs: 60_000, maxBytes: 1_000_000, ...upstream },
  });

  it('a hanging provider is a 502 UPSTREAM_FAILED inside the request deadline, REST and GraphQL', async () => {
    // The provider's own time-out (5 s) is longer than the request's (1.5 s): attempts fit the latter.
    // Whichever timer runs first, the attempt's cut or the deadline's sweep, the answer is the
    // provider's failure: a call still open at the deadline is given up before anything times out.
    const app = await startTestServer({
      privateDb: true,
      now: clockAt(`${DAY}T09:00:00Z`),
      config: { ...meteo({ timeoutMs: 5000 }), executionTimeoutMs: 1500 },
    });
    try {
      fake.mode = 'hang';
      const rest = await getJson(app, '/api/resorts/vail/history?days=7&years=1');
      expect(expectProblem(rest, 502).code).toBe('UPSTREAM_FAILED');
      const g = await gqlPost(app, '{ resort(id: "alta") { history(days: 8, years: 1) { current { snowfall } } } }');
      expect(g.body.errors[0].extensions.code).toBe('UPSTREAM_FAILED');
      expect(g.status).not.toBe(500);
    } finally {
      await app.close();
    }
  });

  it('a huge body is a provider failure, not read to the end: memory stays where it was', async () => {
    const app = await startTestServer({ privateDb: true, now: clockAt(`${DAY}T09:00:00Z`), config: meteo({ timeoutMs: 10_000, retries: 0 }) });
    try {
      fake.mode = 'huge';
      const before = process.memoryUsage().rss;
      const r = await getJson(app, '/api/resorts/vail/history?days=7&years=1');
      expect(expectProblem(r, 502).code).toBe('UPSTREAM_FAILED');
      // 200 MB were offered; at most the 1 MB cap (times a few parallel calls) was held.
      expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    } finally {
      await app.close();
    }
  });

  it('a body that trickles in (a byte every 100 ms) is cut by the time-out: a provider failure, never waited out', async () => {
    // A time-out the trickle can never beat, however busy the machine: the body never ends.
    const app = await startTestServer({ privateDb: true, now: clockAt(`${DAY}T09:00:00Z`), config: meteo({ timeoutMs: 1000, retries: 0 }) });
    try {
      fake.mode = 'trickle';
      expect(expectProblem(await getJson(app, '/api/resorts/alta/history?days=7&years=1'), 502).code).toBe('UPSTREAM_FAILED');
    } finally {
      await app.close();
    }
  });

  it('a sync against a hanging provider ends FAILED within its budget, and the next run can start', async () => {
    const app = await startTestServer({
      privateDb: true,
      now: clockAt(`${DAY}T09:00:00Z`),
      config: { ...meteo({ timeoutMs: 300, retries: 2 }), syncRunBudgetMs: 3000 },
    });
    try {
      fake.mode = 'hang';
      expect((await getJson(app, '/api/sync/run', { method: 'POST' })).body.state).toBe('RUNNING');
      const s = await until(
        async () => (await getJson(app, '/api/sync/status')).body,
        (x) => x.state === 'IDLE',
        20_000,
      );
      // The breaker opens after a few time-outs and the rest fail fast; the budget bounds it anyway.
      expect(s.lastRun.status).toBe('FAILED');
      // The provider's time-out is what ended it (the breaker then failed the rest fast).
      expect(s.lastRun.error).toMatch(/^provider lookup error: open-meteo: timed out \(details in the server log, sync run \d+\)$/);
      expect(s.lastRun.resortsUpdated).toBe(0);
      // The breaker did open, and /metrics shows it: open now, and calls failed fast by it.
      const metrics = await (await fetch(`${app.url}/metrics`, { headers: { 'x-api-key': TEST_KEY } })).text();
      expect(metrics).toMatch(/^upstream_circuit_open\{provider="open-meteo"\} 1$/m);
      expect(Number(metrics.match(/^upstream_calls_total\{provider="open-meteo",outcome="circuit open"\} (\d+)$/m)?.[1])).toBeGreaterThan(0);
      fake.mode = 'ok';
      expect((await getJson(app, '/api/sync/run', { method: 'POST' })).body.state).toBe('RUNNING');
    } finally {
      await app.close();
    }
  });

  it('SYNC_RUN_BUDGET_MS: when it is spent, calls in flight are cancelled and every resort not fetched counts as failed', async () => {
    // Time-outs and a breaker that never act: only the run's budget can end this run.
    const app = await startTestServer({
      privateDb: true,
      now: clockAt(`${DAY}T09:00:00Z`),
      config: { ...meteo({ timeoutMs: 60_000, retries: 0, resetTimeoutMs: 60_000 }), syncRunBudgetMs: 1000 },
    });
    const release = fake.hold();
    try {
      expect((await getJson(app, '/api/sync/run', { method: 'POST' })).body.state).toBe('RUNNING');
      await until(
        async () => fake.inFlight(),
        (n) => n >= 4,
      );
      const s = await until(
        async () => (await getJson(app, '/api/sync/status')).body,
        (x) => x.state === 'IDLE',
        20_000,
      );
      // Nothing was fetched: every resort failed, none was updated, the old data stays.
      expect(s.lastRun).toMatchObject({
        status: 'FAILED',
        resortsUpdated: 0,
        resortsFailed: 241,
        error: expect.stringMatching(/^provider lookup error: open-meteo: timed out/),
      });
      // The calls the provider never answered were cancelled: their connections are closed.
      await until(
        async () => fake.inFlight(),
        (n) => n === 0,
      );
      expect((await getJson(app, '/api/resorts/vail')).body.source).not.toBe('open-meteo');
    } finally {
      release();
      await app.close();
    }
  });

  it('provider text never reaches a client: not in errors, not in the sync history', async () => {
    const app = await startTestServer({ privateDb: true, now: clockAt(`${DAY}T09:00:00Z`), config: meteo({ retries: 0 }) });
    try {
      fake.mode = 'leaky';
      const bodies = [
        await getJson(app, '/api/resorts/vail/history?days=7&years=1'),
        await gqlPost(app, '{ resort(id: "alta") { history(days: 8, years: 1) { current { snowfall } } } }'),
      ];
      await getJson(app, '/api/sync/run', { method: 'POST' });
      await until(
        async () => (await getJson(app, '/api/sync/status')).body,
        (s) => s.state === 'IDLE',
        20_000,
      );
      bodies.push(await getJson(app, '/api/sync/history'), await getJson(app, '/api/sync/status'), await gqlPost(app, '{ syncStatus { lastRun { error } } }'));
      for (const b of bodies) {
        const text = JSON.stringify(b.body);
        expect(text).not.toContain('worker.py');
        expect(text).not.toContain('password');
      }
      expect((await getJson(app, '/api/sync/history')).body.runs[0].error).toMatch(
        /^provider lookup error: open-meteo: HTTP error \(details in the server log, sync run \d+\)$/,
      );
    } finally {
      await app.close();
    }
  });
});

describe('connections are bounded', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer({
      privateDb: true,
      config: { connections: { maxConnections: 50, headersTimeoutMs: 600, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 1000 } },
    });
  });
  afterAll(() => app.close());

  const connect = () =>
    new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(app.port, '127.0.0.1', () => resolve(s));
      s.on('error', () => {});
      s.once('error', reject);
    });

  it('a normal client is served while hundreds of idle sockets are open, and the cap holds', async () => {
    const idle: net.Socket[] = [];
    for (let i = 0; i < 300; i++) idle.push(await connect());
    expect(app.openConnections()).toBeLessThanOrEqual(50);
    const r = await getJson(app, '/api/zip/90210');
    expect(r.status).toBe(200);
    // The oldest idle sockets were closed to make room.
    await until(
      async () => idle.filter((s) => s.destroyed || s.readableEnded).length,
      (n) => n > 200,
      20_000,
      20,
    );
    for (const s of idle) s.destroy();
  });

  it('a slowloris trickling its headers is cut by the header time-out, with a 408 that says so', async () => {
    const s = await connect();
    let answer = '';
    s.on('data', (d: Buffer) => (answer += d));
    const closed = new Promise((resolve) => s.on('close', resolve));
    s.write('GET /api/zip/90210 HTTP/1.1\r\nhost: x\r\n');
    // It never finishes its headers; only the header time-out (600 ms here; the request time-out is
    // a minute, the keep-alive time-out applies to idle sockets) can end this.
    const trickle = setInterval(() => s.writable && s.write('x-a: b\r\n'), 100);
    await closed;
    clearInterval(trickle);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    // A raw answer, written before any handler ran, still has the security headers and a problem body.
    for (const h of [
      'x-content-type-options: nosniff',
      'x-frame-options: deny',
      'referrer-policy: no-referrer',
      'content-security-policy: ',
      'content-type: application/problem+json',
    ]) {
      expect(answer.toLowerCase()).toContain(h);
    }
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
  });

  it('a keep-alive connection says how long it may idle (KEEP_ALIVE_TIMEOUT_MS), and the server closes it then', async () => {
    const s = await connect();
    let answer = '';
    s.on('data', (d: Buffer) => (answer += d));
    const ended = new Promise((resolve) => s.on('end', resolve));
    s.write(`GET /api/zip/90210 HTTP/1.1\r\nhost: x\r\nx-api-key: ${TEST_KEY}\r\n\r\n`);
    // The client never sends another request nor closes: only the server's idle time-out ends it.
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.toLowerCase()).toContain('keep-alive: timeout=1\r\n');
    s.destroy();
  });
});

describe('the whole request is bounded in time too (REQUEST_TIMEOUT_MS)', () => {
  it('a body that trickles in after quick headers is cut with a 408 before it is complete', async () => {
    const app = await startTestServer({
      privateDb: true,
      config: { connections: { maxConnections: 50, headersTimeoutMs: 500, requestTimeoutMs: 1500, keepAliveTimeoutMs: 1000 } },
    });
    try {
      const s = net.connect(app.port, '127.0.0.1');
      s.on('error', () => {});
      let answer = '';
      s.on('data', (d: Buffer) => (answer += d));
      const closed = new Promise((resolve) => s.on('close', resolve));
      // 200 bytes promised, one sent every 100 ms: 20 s to finish, so only the request time-out can end it.
      s.write(`POST /graphql HTTP/1.1\r\nhost: x\r\nx-api-key: ${TEST_KEY}\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n`);
      let sent = 0;
      const trickle = setInterval(() => {
        if (!s.writable || sent >= 200) return;
        s.write(' ');
        sent++;
      }, 100);
      await closed;
      clearInterval(trickle);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(sent).toBeLessThan(200);
    } finally {
      await app.close();
    }
  });
});

describe('scopes', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer({ privateDb: true, config: { apiKeys: ['szg_reader'] } });
  });
  afterAll(() => app.close());

  it('starting a sync run needs the admin scope: 403 for other keys, REST and GraphQL', async () => {
    const rest = await getJson(app, '/api/sync/run', { method: 'POST', apiKey: 'szg_reader' });
    const p = expectProblem(rest, 403);
    expect(p.code).toBe('FORBIDDEN');
    expect(p.detail).toMatch(/--scope admin/);
    const g = await gqlPost(app, 'mutation { runSync { state } }', 'szg_reader');
    expect(g.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // Reading the status is for everyone; the suite's key (an admin) may start runs.
    expect((await getJson(app, '/api/sync/status', { apiKey: 'szg_reader' })).status).toBe(200);
    expect((await getJson(app, '/api/sync/run', { method: 'POST' })).status).toBe(200);
  });
});

describe('nothing leaks', () => {
  it('introspection and every hint are off by default in production', async () => {
    const { loadConfig } = await import('../src/lib/config.js');
    expect(loadConfig({ NODE_ENV: 'production' }).introspection).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'on' }).introspection).toBe(true);
    expect(loadConfig({}).introspection).toBe(true);
    const prod = await startTestServer({ config: { introspection: false } });
    try {
      const enumHint = await getJson(prod, '/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'query($u: Units) { topSnow(units: $u) { resorts { rank } } }', variables: { u: 'METRC' } }),
      });
      const literalHint = await gqlPost(prod, '{ topSnow(units: METRC) { resorts { rank } } }');
      const fieldHint = await gqlPost(prod, '{ zipStat { totalZips } }');
      for (const r of [enumHint, literalHint, fieldHint]) {
        expect(r.body.errors.length).toBeGreaterThan(0);
        expect(JSON.stringify(r.body)).not.toMatch(/Did you mean/);
      }
    } finally {
      await prod.close();
    }
  });

  it('invalid JSON to /graphql is a 400 naming the body, without originalError, in every JSON media type', async () => {
    const app = await startTestServer();
    try {
      for (const type of ['application/json', 'application/graphql+json', 'application/json; charset=utf-8']) {
        const bad = await getJson(app, '/graphql', { method: 'POST', headers: { 'content-type': type }, body: '{ not json' });
        expect(bad.status, type).toBe(400);
        expect(bad.body.errors, type).toEqual([{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }]);
        expect(JSON.stringify(bad.body), type).not.toMatch(/originalError|SyntaxError|stack/);
      }
    } finally {
      await app.close();
    }
  });

  it('answers the server writes for unparseable requests carry the security headers', async () => {
    const app = await startTestServer();
    try {
      const raw = (text: string) =>
        new Promise<string>((resolve) => {
          const socket = net.connect(app.port, '127.0.0.1', () => socket.end(text));
          let out = '';
          socket.on('data', (d) => (out += d));
          socket.on('close', () => resolve(out));
        });
      for (const text of ['THIS IS NOT HTTP\r\n\r\n', `GET /api/zip/90210?x=${'a'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`]) {
        const head = (await raw(text)).split('\r\n\r\n')[0]!.toLowerCase();
        expect(head).toMatch(/^http\/1.1 4(00|14) /);
        for (const h of [
          'x-content-type-options: nosniff',
          'x-frame-options: deny',
          "content-security-policy: default-src 'none'",
          'cache-control: no-store',
          'x-request-id: ',
        ]) {
          expect(head).toContain(h);
        }
      }
    } finally {
      await app.close();
    }
  });
});

describe('the GraphiQL page', () => {
  let app: RunningApp;
  beforeAll(async () => {
    // A fixed clock: the limit counts per minute of it, and on the run's clock the loads below
    // could straddle a minute's turn on a slow machine and never reach the limit in one minute.
    app = await startTestServer({ now: clockAt('2027-02-01T08:30:00Z') });
  });
  afterAll(() => app.close());

  it('is compressed, revalidated by ETag, asks for a key first, and limited per address without a key', async () => {
    const page = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html', 'accept-encoding': 'br' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-encoding')).toBe('br');
    const html = await page.text();
    expect(html).toContain('szg-key');
    expect(html).toContain('localStorage.getItem(STORE)');
    expect(Number(page.headers.get('content-length'))).toBeLessThan(3_000_000);
    const etag = page.headers.get('etag')!;
    const again = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html', 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const gz = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    await gz.arrayBuffer();
    let limited: Response | null = null;
    for (let i = 0; i < 70 && !limited; i++) {
      const r = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html', 'if-none-match': etag } });
      if (r.status === 429) limited = r;
      else await r.arrayBuffer();
    }
    expect(limited).not.toBeNull();
    expect(limited!.headers.get('retry-after')).toBeTruthy();
    expect(limited!.headers.get('content-type')).toMatch(/problem\+json/);
  });
});
