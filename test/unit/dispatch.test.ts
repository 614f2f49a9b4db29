import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/auth/api-key.js';
import { AuthGuard } from '../../src/auth/guard.js';
import { UsageCounter } from '../../src/auth/usage-counter.js';
import { KeyRepository } from '../../src/data/repositories/keys.js';
import { BodyTooLargeError } from '../../src/http/body.js';
import { Deadlines } from '../../src/http/deadline.js';
import { type AdmittedUpgrade, createDispatcher, type Handlers } from '../../src/http/dispatch.js';
import type { Exchange } from '../../src/http/exchange.js';
import { createMetrics } from '../../src/http/metrics.js';
import { activeTraceId } from '../../src/telemetry/trace.js';
import { withTracing } from './tracing.js';
import { ProviderCalls } from '../../src/lib/provider-calls.js';
import { sendProblem } from '../../src/http/problem.js';
import { emptyDatabase } from '../helpers/keys-db.js';
import { recordingLogger } from './pipeline-world.js';
import { ANSWER_MS, ask, until } from './serving.js';

/**
 * The dispatcher in front of handlers of the test's own, over the real key check (a SQLite file
 * with the real schema), a deadline list on a clock the test moves and sweeps by hand, and a
 * real node:http server on an ephemeral port.
 */
const KEY = 'szg_dispatch_test_key_0001';
const ADMIN = 'szg_dispatch_admin_key_0001';
/** A key whose monthly quota is one request. */
const SPENT = 'szg_dispatch_spent_key_0001';
const JSON_TYPE = 'application/json; charset=utf-8';

let store: ReturnType<typeof emptyDatabase>;
let usage: UsageCounter;
let server: Server;
let url: string;
let deadlines: Deadlines;
let monotonic: number;
let ready: { ready: boolean; waiting: string[]; notes?: string[] };
let logged: ReturnType<typeof recordingLogger>['lines'];
let upgrades: AdmittedUpgrade[];
/** Requests the handlers hold unanswered, for the deadline to find. */
let held: Exchange[];
let metrics: ReturnType<typeof createMetrics>;

/** What a handler saw of whose request it is, as its answer. */
const whose = (ex: Exchange, handler: string) =>
  ex.send(
    200,
    JSON_TYPE,
    JSON.stringify({
      handler,
      path: ex.path,
      query: ex.query,
      keyId: ex.keyId,
      scopes: ex.scopes,
      route: ex.route,
      requestId: ex.requestId,
      traceId: activeTraceId(),
    }),
  );

/** Keeps a request unanswered, as work in progress does: its handler ends when its answer has. */
function hold(ex: Exchange): Promise<void> {
  held.push(ex);
  return new Promise((resolve) => ex.res.once('close', () => resolve()));
}

const handlers: Handlers = {
  pages: {
    pageOf: (ex) => (ex.path === '/' ? 'index' : null),
    serve: async (ex, page) => ex.send(200, 'text/plain', `page ${page}, key ${ex.keyId}`),
  },
  ready: () => ready,
  graphql: {
    handle(ex) {
      if (ex.query === 'hold') return hold(ex);
      if (ex.query === 'parts') {
        ex.incremental = true;
        ex.res.writeHead(200, { 'content-type': 'multipart/mixed' });
        ex.res.write('--part\r\n');
        return hold(ex);
      }
      whose(ex, 'graphql');
    },
  },
  mcp: async (ex) => whose(ex, 'mcp'),
  async rest(ex) {
    switch (ex.path) {
      case '/api/who':
        whose(ex, 'rest');
        return true;
      case '/api/costly':
        ex.cost = 7;
        whose(ex, 'rest');
        return true;
      case '/api/provider': {
        // Work waiting on a provider: given up at the deadline, it answers with the provider's failure.
        const calls = (ex.providers = new ProviderCalls());
        calls.open = 1;
        held.push(ex);
        await new Promise((resolve) => calls.signal.addEventListener('abort', resolve));
        calls.open = 0;
        sendProblem(ex, { status: 502, code: 'UPSTREAM_FAILED', detail: 'the provider did not answer' });
        return true;
      }
      case '/api/detached':
        // A stream whose handler has returned (an SSE subscription goes on without it).
        ex.res.writeHead(200, { 'content-type': 'text/event-stream' });
        ex.res.write(': open\n\n');
        held.push(ex);
        return true;
      case '/api/stream':
        // A stream that has started (SSE): its head is out, and it is not an answer in parts.
        ex.res.writeHead(200, { 'content-type': 'text/event-stream' });
        ex.res.write(': open\n\n');
        await hold(ex);
        return true;
      case '/api/hold':
        await hold(ex);
        return true;
      case '/api/broken':
        throw new Error('a bug');
      case '/api/large':
        throw new BodyTooLargeError(1024);
      case '/api/half':
        ex.res.writeHead(200, { 'content-type': 'text/plain' });
        ex.res.write('half');
        throw new Error('broke after the head');
      default:
        return false;
    }
  },
  async webSocket(_req: IncomingMessage, socket: Duplex, _head: Buffer, admitted: AdmittedUpgrade) {
    upgrades.push(admitted);
    socket.end('HTTP/1.1 101 Switching Protocols\r\n\r\n');
  },
};

beforeEach(async () => {
  store = emptyDatabase('gateway-dispatch-');
  const keys = new KeyRepository(store.db);
  usage = new UsageCounter(keys, 60_000);
  const clock = new Date('2027-02-10T12:00:00Z');
  const base = { plan: 'free', createdAt: clock.toISOString(), monthlyQuota: 100_000, ratePerSecond: 100_000 };
  keys.create({ ...base, name: 'user', keyHash: hashApiKey(KEY), scopes: '' });
  keys.create({ ...base, name: 'admin', keyHash: hashApiKey(ADMIN), scopes: 'admin' });
  keys.create({ ...base, name: 'spent', keyHash: hashApiKey(SPENT), scopes: '', monthlyQuota: 1 });
  monotonic = 0;
  deadlines = new Deadlines(1000, () => monotonic);
  metrics = createMetrics();
  ready = { ready: true, waiting: [] };
  upgrades = [];
  held = [];
  const recording = recordingLogger();
  recording.logger.level = 'info';
  logged = recording.lines;
  const dispatch = createDispatcher({
    guard: new AuthGuard(keys, usage, () => clock, true),
    handlers,
    deadlines,
    metrics,
    corsOrigins: ['https://app.example'],
    logger: recording.logger,
    now: () => clock.getTime(),
  });
  server = createServer(dispatch);
  server.on('upgrade', (req, socket, head) => void dispatch.upgrade(req, socket, head));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  server.closeAllConnections();
  server.close();
  deadlines.close();
  usage.close();
  store.remove();
});

const withKey = (key = KEY, headers: Record<string, string> = {}) => ({ headers: { 'x-api-key': key, ...headers } });

describe('the one door every request takes', () => {
  it('a keyed request reaches its handler with whose it is; /v1 is the same path; the route is named for metrics', async () => {
    const rest = await ask(`${url}/v1/api/who?a=1`, withKey());
    expect(await rest.json()).toMatchObject({ handler: 'rest', path: '/api/who', query: 'a=1', keyId: 1, scopes: '', route: 'unmatched' });
    expect(await (await ask(`${url}/api/who`, withKey())).json()).toMatchObject({ path: '/api/who', query: '' });
    expect(rest.headers.get('ratelimit-limit')).toBe('100000');
    expect(await (await ask(`${url}/graphql`, withKey(ADMIN))).json()).toMatchObject({ handler: 'graphql', keyId: 2, scopes: 'admin', route: '/graphql' });
    expect(await (await ask(`${url}/v1/mcp`, withKey())).json()).toMatchObject({ handler: 'mcp', path: '/mcp', route: '/mcp' });
    expect(await (await ask(`${url}/v1`, withKey())).text()).toBe('page index, key 0'.replace('0', 'null'));
  });

  it('the client’s request id when it is usable, a new UUID otherwise', async () => {
    const kept = await ask(`${url}/api/who`, withKey(KEY, { 'x-request-id': 'client-7.a:b' }));
    expect([kept.headers.get('x-request-id'), (await kept.json()).requestId]).toEqual(['client-7.a:b', 'client-7.a:b']);
    for (const bad of ['has space', 'x'.repeat(65)]) {
      const made = await ask(`${url}/api/who`, withKey(KEY, { 'x-request-id': bad }));
      expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect((await ask(`${url}/api/who`, withKey(KEY, { 'x-request-id': 'x'.repeat(64) }))).headers.get('x-request-id')).toBe('x'.repeat(64));
  });

  it('an allowed origin’s CORS headers join the key’s headers; a preflight needs no key', async () => {
    const r = await ask(`${url}/api/who`, withKey(KEY, { origin: 'https://app.example' }));
    expect([r.headers.get('access-control-allow-origin'), r.headers.get('vary'), r.headers.get('ratelimit-limit')]).toEqual([
      'https://app.example',
      'Origin',
      '100000',
    ]);
    const other = await ask(`${url}/api/who`, withKey(KEY, { origin: 'https://evil.example' }));
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await ask(`${url}/api/who`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
    expect([pre.status, pre.headers.get('access-control-allow-methods')]).toEqual([204, 'GET, POST, OPTIONS']);
  });

  it('probes need no key: /livez 200, /readyz 503 with what it waits for until ready, notes either way; only GET and HEAD', async () => {
    const live = await ask(`${url}/livez`);
    expect([live.status, live.headers.get('cache-control'), await live.json()]).toEqual([200, 'no-store', { status: 'live' }]);
    ready = { ready: false, waiting: ['weather window'], notes: ['sync paused'] };
    const starting = await ask(`${url}/v1/readyz`);
    expect([starting.status, await starting.json()]).toEqual([503, { status: 'starting', waiting: ['weather window'], notes: ['sync paused'] }]);
    ready = { ready: true, waiting: [], notes: [] };
    expect(await (await ask(`${url}/readyz`)).json()).toEqual({ status: 'ready' });
    expect((await ask(`${url}/readyz`, { method: 'HEAD' })).status).toBe(200);
    const post = await ask(`${url}/livez`, { method: 'POST' });
    expect([post.status, post.headers.get('allow'), await post.json()]).toMatchObject([
      405,
      'GET, HEAD',
      { code: 'METHOD_NOT_ALLOWED', detail: 'POST is not allowed here; use GET, HEAD' },
    ]);
  });

  it('without a usable key: 401 with how to send one, and nothing reaches a handler', async () => {
    for (const init of [{}, withKey('szg_no_such_key')]) {
      const r = await ask(`${url}/api/who`, init);
      expect([r.status, r.headers.get('www-authenticate'), (await r.json()).code]).toEqual([401, 'ApiKey header="x-api-key"', 'UNAUTHENTICATED']);
    }
    expect((await ask(`${url}/graphql`)).status).toBe(401);
  });

  it('past 1,000 keyless requests from one address in the window, 429 and the connection closed', async () => {
    for (let i = 0; i < 1000; i++) expect((await ask(`${url}/api/who`)).status).toBe(401);
    const flood = await ask(`${url}/api/who`);
    expect([flood.status, flood.headers.get('connection'), flood.headers.get('retry-after'), (await flood.json()).code]).toEqual([
      429,
      'close',
      '10',
      'RATE_LIMITED',
    ]);
    // A keyed request from the same address is still answered; one refused for its quota gets its own answer.
    expect((await ask(`${url}/api/who`, withKey())).status).toBe(200);
    expect((await ask(`${url}/api/who`, withKey(SPENT))).status).toBe(200);
    const spent = await ask(`${url}/api/who`, withKey(SPENT));
    expect([spent.status, spent.headers.get('connection'), (await spent.json()).detail]).toEqual([
      429,
      'keep-alive',
      'Monthly quota of 1 requests used up; it resets at the start of next month (UTC).',
    ]);
    // The same over an upgrade: a bad key past the flood is the flood's answer; a spent one its own.
    expect(await rawUpgrade('/graphql', { 'x-api-key': 'szg_no_such_key' })).toMatch(/^HTTP\/1.1 429 Too Many Requests\r\n[\s\S]*connection: close/);
    expect(await rawUpgrade('/graphql', { 'x-api-key': SPENT })).toMatch(/^HTTP\/1.1 429 Too Many Requests\r\n[\s\S]*Monthly quota of 1/);
  });

  it('/metrics for an admin key only', async () => {
    const no = await ask(`${url}/metrics`, withKey());
    expect([no.status, await no.json()]).toMatchObject([403, { code: 'FORBIDDEN', detail: 'Metrics need a key with the admin scope.' }]);
    const started = performance.now();
    await (await ask(`${url}/livez`)).text();
    const took = (performance.now() - started) / 1000;
    const yes = await ask(`${url}/metrics`, withKey(ADMIN));
    expect([yes.status, yes.headers.get('cache-control')]).toEqual([200, 'no-store']);
    // The requests counted so far are in it, this file's among them.
    const text = await yes.text();
    expect(text).toMatch(/^http_requests_total\{route="\/metrics",method="GET",status="403"\} [1-9]/m);
    expect(text).toMatch(/^http_requests_total\{route="\/livez",method="GET",status="200"\} 1$/m);
    // The time it took the server, in seconds: no more than the client waited.
    const seconds = Number(text.match(/^http_request_duration_seconds_sum\{route="\/livez"\} (\S+)$/m)![1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(took);
  });

  it('a path no route has is 404 naming it; a handler’s bug is a logged 500; a body over its bound is 413 naming the bound', async () => {
    const missing = await ask(`${url}/api/nothing`, withKey());
    expect([missing.status, await missing.json()]).toMatchObject([404, { code: 'NOT_FOUND', detail: 'No such path: /api/nothing' }]);
    const broken = await ask(`${url}/api/broken`, withKey(KEY, { 'x-request-id': 'bug-1' }));
    expect([broken.status, (await broken.json()).code]).toEqual([500, 'INTERNAL_SERVER_ERROR']);
    expect(logged.find((l) => l.msg === 'request failed')).toMatchObject({ reqId: 'bug-1', level: 50 });
    const large = await ask(`${url}/api/large`, withKey());
    expect([large.status, await large.json()]).toMatchObject([
      413,
      { code: 'PAYLOAD_TOO_LARGE', detail: 'The request body must be at most 1024 bytes.', errors: [{ name: 'body', bound: '<= 1024 bytes' }] },
    ]);
    expect(logged.find((l) => l.msg === 'The request body must be at most 1024 bytes.')).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', level: 40 });
    expect((await (await ask(`${url}/api/large`, withKey())).json()).errors).toEqual([
      { name: 'body', bound: '<= 1024 bytes', message: 'body must be at most 1024 bytes' },
    ]);
  });

  it('a handler that breaks after its head went out: the answer is ended as it stands', async () => {
    const r = await ask(`${url}/api/half`, withKey());
    expect([r.status, await r.text()]).toEqual([200, 'half']);
  });

  it('one log line per finished request: its id, method, URL, status and key', async () => {
    await (await ask(`${url}/api/who?x=1`, withKey(KEY, { 'x-request-id': 'log-1' }))).text();
    await until(() => logged.some((l) => l.reqId === 'log-1' && l.msg === 'request'));
    const started = performance.now();
    await (await ask(`${url}/api/costly`, withKey(KEY, { 'x-request-id': 'log-2' }))).text();
    const took = performance.now() - started;
    await until(() => logged.some((l) => l.reqId === 'log-2' && l.msg === 'request'));
    const [plain, costly] = ['log-1', 'log-2'].map((id) => logged.find((l) => l.reqId === id && l.msg === 'request')!);
    expect(plain).toMatchObject({ method: 'GET', url: '/api/who?x=1', status: 200, keyId: 1 });
    // No cost when it cost nothing; the time the server took, in ms, within what the client waited.
    expect(['cost' in plain!, costly!.cost]).toEqual([false, 7]);
    expect(costly!.ms).toBeGreaterThanOrEqual(0);
    expect(costly!.ms).toBeLessThanOrEqual(took);
  });
});

describe('the deadline', () => {
  const sweepAfter = (ms: number) => {
    monotonic += ms;
    deadlines.sweep();
  };

  it('a request unanswered past it: 503 TIMEOUT, problem+json on REST, a GraphQL error on /graphql, its work aborted', async () => {
    const rest = ask(`${url}/api/hold`, withKey());
    const gql = ask(`${url}/graphql?hold`, withKey(KEY, { 'x-request-id': 'slow-1' }));
    await until(() => held.length === 2);
    sweepAfter(999);
    expect(held.map((ex) => ex.timedOut)).toEqual([false, false]);
    sweepAfter(1);
    expect(held.map((ex) => [ex.timedOut, ex.signal.aborted])).toEqual([
      [true, true],
      [true, true],
    ]);
    const r = await rest;
    expect([r.status, r.headers.get('retry-after'), await r.json()]).toMatchObject([503, '1', { code: 'TIMEOUT', detail: expect.stringContaining('1000 ms') }]);
    const g = await gql;
    expect([g.status, g.headers.get('content-type'), g.headers.get('retry-after'), await g.json()]).toEqual([
      503,
      JSON_TYPE,
      '1',
      { errors: [{ message: expect.stringContaining('1000 ms'), extensions: { code: 'TIMEOUT' } }], extensions: { requestId: 'slow-1' } },
    ]);
    const passed = logged.filter((l) => l.msg === 'request deadline passed').sort((a, b) => String(a.url).localeCompare(String(b.url)));
    expect(passed).toEqual([
      expect.objectContaining({ url: '/api/hold', ms: 1000, level: 40 }),
      expect.objectContaining({ reqId: 'slow-1', url: '/graphql?hold', ms: 1000 }),
    ]);
  });

  it('an answer in parts that has started is cut (its work aborted), not answered again; an answered request is no longer watched', async () => {
    const parts = ask(`${url}/graphql?parts`, withKey());
    await until(() => held.length === 1);
    const response = await parts;
    sweepAfter(1000);
    expect([held[0]!.timedOut, response.status]).toEqual([true, 200]);
    held[0]!.res.end('--part--\r\n');
    expect(await response.text()).toBe('--part\r\n--part--\r\n');
    await (await ask(`${url}/api/who`, withKey())).text();
    expect(deadlines.size).toBe(0);
  });

  it('provider calls still open are given up first: the request answers with the provider’s failure, not a 503', async () => {
    const waiting = ask(`${url}/api/provider`, withKey());
    await until(() => held.length === 1);
    sweepAfter(1000);
    const r = await waiting;
    expect([r.status, (await r.json()).code]).toEqual([502, 'UPSTREAM_FAILED']);
    expect([held[0]!.timedOut, deadlines.size]).toEqual([false, 0]);
    // Nothing was left for the next sweep to time out.
    sweepAfter(10);
    expect(logged.filter((l) => l.msg === 'request deadline passed')).toEqual([]);
  });

  it('a stream that has started (SSE) is not cut by it', async () => {
    const stream = ask(`${url}/api/stream`, withKey());
    await until(() => held.length === 1);
    const response = await stream;
    sweepAfter(5000);
    expect([held[0]!.timedOut, held[0]!.signal.aborted]).toEqual([false, false]);
    held[0]!.res.end();
    expect(await response.text()).toBe(': open\n\n');
  });
});

/** Sends an upgrade request by hand and reads what comes back until the server closes. */
async function rawUpgrade(path: string, headers: Record<string, string> = {}): Promise<string> {
  const { port } = server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  socket.setTimeout(ANSWER_MS, () => socket.destroy(new Error('no answer to the upgrade')));
  const lines = [
    `GET ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    'connection: upgrade',
    'upgrade: websocket',
    'sec-websocket-version: 13',
    'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==',
  ];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n`);
  let text = '';
  socket.on('data', (c: Buffer) => (text += c.toString()));
  await once(socket, 'close');
  return text;
}

describe('WebSocket upgrades, through the same door', () => {
  const upgrade = rawUpgrade;

  it('only at /graphql; a foreign origin is refused; the server’s own origin and allowed ones pass', async () => {
    expect(await upgrade('/elsewhere')).toMatch(
      /^HTTP\/1.1 404 Not Found\r\n[\s\S]*"detail":"No WebSocket at \/elsewhere: GraphQL over WebSocket is at \/graphql.","code":"NOT_FOUND"/,
    );
    expect(await upgrade('/graphql', { origin: 'https://evil.example' })).toMatch(
      /^HTTP\/1.1 403 Forbidden\r\n[\s\S]*"detail":"The origin https:\/\/evil.example may not open a WebSocket here \(CORS_ORIGINS\).","code":"FORBIDDEN"/,
    );
    const { port } = server.address() as AddressInfo;
    expect(await upgrade('/v1/graphql', { origin: `http://127.0.0.1:${port}` })).toMatch(/^HTTP\/1.1 101 /);
    expect(await upgrade('/graphql', { origin: 'https://app.example' })).toMatch(/^HTTP\/1.1 101 /);
    expect(upgrades).toHaveLength(2);
  });

  it('no key: handed on to say it in connection_init; a bad key refused before the handshake; a good one handed on with its verdict', async () => {
    await upgrade('/graphql', { 'x-request-id': 'ws-1' });
    expect(upgrades[0]).toEqual({ requestId: 'ws-1', key: null });
    expect(await upgrade('/graphql', { 'x-api-key': 'szg_no_such_key' })).toMatch(/^HTTP\/1.1 401 Unauthorized\r\n/);
    await upgrade('/graphql', { 'x-api-key': KEY });
    expect(upgrades).toHaveLength(2);
    expect(upgrades[1]!.key).toMatchObject({ presented: KEY, verdict: { ok: true, key: { id: 1 } } });
  });
});

describe('traced (OTEL_* set)', () => {
  it('a request’s span continues the caller’s trace, named by method and route when its answer ends; the key check is a span under it; probes are not traced', async () => {
    await withTracing('dispatch', async ({ exporter }) => {
      const caller = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const r = await ask(`${url}/graphql`, withKey(KEY, { traceparent: caller }));
      const body = await r.json();
      // The handler runs inside the request's span: the caller's trace id.
      expect(body.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(r.headers.get('traceparent')).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
      for (const probe of ['/livez', '/readyz']) expect((await ask(url + probe)).headers.get('traceparent')).toBeNull();
      await (await ask(`${url}/mcp`, { method: 'POST', ...withKey() })).text();
      // A streamed answer's span ends when its last part has gone, not when its handler returns.
      const stream = ask(`${url}/api/detached`, withKey());
      await until(() => held.length === 1);
      const streaming = await stream;
      await until(() => exporter.getFinishedSpans().some((s) => s.name === 'GET /graphql'));
      expect(exporter.getFinishedSpans().map((s) => s.name)).not.toContain('GET unmatched');
      held[0]!.res.end();
      await streaming.text();
      await until(() => exporter.getFinishedSpans().some((s) => s.name === 'GET unmatched'));
      const spans = exporter.getFinishedSpans();
      const request = spans.find((s) => s.name === 'GET /graphql')!;
      expect(request.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/graphql', 'http.response.status_code': 200 });
      expect(request.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      const check = spans.find((s) => s.name === 'key check' && s.spanContext().traceId === request.spanContext().traceId)!;
      expect(check.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(spans.map((s) => s.name)).not.toContain('GET /livez');
      expect(spans.find((s) => s.name === 'POST /mcp')?.attributes['http.request.method']).toBe('POST');
    });
  });
});

describe('a key check that answers later (the shared one in Redis)', () => {
  it('its verdict is awaited: a keyed request is let in, a bad key refused', async () => {
    const local = new AuthGuard(new KeyRepository(store.db), usage, () => new Date('2027-02-10T12:00:00Z'), true);
    const dispatch = createDispatcher({
      guard: { check: async (presented, counted) => local.check(presented, counted) },
      handlers,
      deadlines,
      metrics,
      corsOrigins: ['*'],
      logger: recordingLogger().logger,
      now: () => 0,
    });
    const later = createServer(dispatch);
    later.listen(0, '127.0.0.1');
    await once(later, 'listening');
    try {
      const at = `http://127.0.0.1:${(later.address() as AddressInfo).port}`;
      const keyed = await ask(`${at}/api/who`, withKey());
      expect(await keyed.json()).toMatchObject({ keyId: 1 });
      // CORS_ORIGINS=*: a request without an Origin (not a browser's) gets no CORS headers.
      expect(keyed.headers.get('access-control-allow-origin')).toBeNull();
      expect((await ask(`${at}/api/who`, withKey(KEY, { origin: 'https://any.example' }))).headers.get('access-control-allow-origin')).toBe('*');
      expect((await ask(`${at}/api/who`, withKey('szg_no_such_key'))).status).toBe(401);
    } finally {
      later.closeAllConnections();
      later.close();
    }
  });
});

describe('what an MCP message counts', () => {
  it('against the key’s rate only: the quota left is the same before and after it', async () => {
    const remaining = async (path: string) => Number((await ask(`${url}${path}`, withKey())).headers.get('ratelimit-remaining'));
    const first = await remaining('/api/who');
    expect(await remaining('/mcp')).toBe(first);
    expect(await remaining('/api/who')).toBe(first - 1);
  });
});
