import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.js';
import { spawnServer } from './helpers/process.js';
import { getJson, privateDatabase, startTestServer, SYNC_RESORTS } from './helpers/server.js';
import { runNow } from './helpers/clock.js';
import { isoDate } from '../src/domain/dates.js';
import { until } from './helpers/wait.js';

/**
 * OpenTelemetry traces, as an operator gets them: the server as `npm start` runs it, with the
 * standard OTEL_* variables pointing at a local OTLP/HTTP receiver (this file's), and a fake
 * Open-Meteo for the provider calls and a sync run. Spans are flushed when the process shuts down.
 */

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string }[];
  service: string;
}

const KEY = 'szg_tracing_key';
/** A caller's trace: W3C traceparent with its trace id and its span id. */
const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

let receiver: Server;
const spans: ReceivedSpan[] = [];
let fake: FakeUpstream;

beforeAll(async () => {
  // An OTLP/HTTP endpoint: POST /v1/traces with the JSON encoding (what the SDK's HTTP exporter sends).
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      expect(req.url).toBe('/v1/traces');
      const sent = JSON.parse(body) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: (Omit<ReceivedSpan, 'attributes' | 'service'> & { attributes?: { key: string; value: Record<string, unknown> }[] })[] }[];
        }[];
      };
      for (const rs of sent.resourceSpans) {
        const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans)
            spans.push({
              ...s,
              events: s.events ?? [],
              service,
              attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]])),
            });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  fake = await startFakeUpstream({ today: isoDate(runNow()) });
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await fake?.close();
});

describe('traces over OTLP/HTTP', () => {
  let log = '';
  const responses: Record<string, Response> = {};

  beforeAll(async () => {
    const server = spawnServer(privateDatabase('gateway-tracing-', { resorts: SYNC_RESORTS }), {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      OTEL_SERVICE_NAME: 'gateway-under-test',
      API_KEYS: KEY,
      API_ADMIN_KEYS: KEY,
      PROVIDER: 'open-meteo',
      OPEN_METEO_FORECAST_URL: `${fake.url}/v1/forecast`,
      OPEN_METEO_ARCHIVE_URL: `${fake.url}/v1/archive`,
      UPSTREAM_TIMEOUT_MS: '60000',
      // A warm-up round, which must make no span (the suite's servers otherwise skip it).
      WARM_UP_ROUNDS: '1',
    });
    const url = await server.url;
    const call = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { 'x-api-key': KEY, ...init.headers } });
    // Ready (warmed, the ZIP table in memory) before the requests whose spans are read.
    await until(
      () => fetch(`${url}/readyz`).then((r) => r.status),
      (status) => status === 200,
    );
    responses.zip = await call('/api/zip/90210', { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    responses.graphql = await call('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'query NearVail { zip(zip: "81657") { city nearbyResorts(radiusMiles: 40, limit: 2) { resort { name } } } zips(codes: ["90210", "05401", "10001"]) { zip } }',
      }),
    });
    // Probes, even with a caller's trace: a load balancer's polling is no one's request.
    responses.readyz = await call('/readyz', { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    responses.livez = await call('/livez', { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    responses.history = await call('/api/resorts/vail/history?days=7&years=1');
    // A provider that fails once and then answers: the call's span records the retry.
    fake.mode = 'rate-limited-once';
    responses.retried = await call('/api/resorts/alta/history?days=7&years=1');
    responses.sync = await call('/api/sync/run', { method: 'POST' });
    await until(
      () => call('/api/sync/status').then((r) => r.json()),
      (s: { state: string; lastRun: unknown }) => s.state === 'IDLE' && s.lastRun !== null,
    );
    for (const r of Object.values(responses)) await r.arrayBuffer();
    // What was recorded is exported when the process shuts down.
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    log = server.output();
  }, 120_000);

  const named = (name: string) => spans.filter((s) => s.name === name);
  const childrenOf = (span: ReceivedSpan) => spans.filter((s) => s.parentSpanId === span.spanId);

  it('continues the caller’s trace: the request’s span is a child of its traceparent, and the answer carries the new one', () => {
    expect(responses.zip!.status).toBe(200);
    const [http] = named('GET /api/zip/{zip}');
    expect(http).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN, kind: 2, service: 'gateway-under-test' });
    expect(http!.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/api/zip/{zip}', 'http.response.status_code': 200 });
    expect(responses.zip!.headers.get('traceparent')).toBe(`00-${CALLER_TRACE}-${http!.spanId}-01`);
  });

  it('under the request: the key check, the GraphQL operation with its cost, and each loader batch (not each field)', () => {
    const [http] = named('GET /api/zip/{zip}');
    expect(
      childrenOf(http!)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['graphql query RestZip', 'key check']);
    const [operation] = named('graphql query RestZip').filter((s) => s.traceId === CALLER_TRACE);
    expect(operation!.attributes).toMatchObject({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'RestZip', 'graphql.operation.cost': 11 });
    // A ZIP comes from the table the server holds in memory: no batch, no statement, no span.
    expect(childrenOf(operation!)).toEqual([]);

    // A GraphQL request with no traceparent starts a trace of its own, named by its operation.
    const [post] = named('POST /graphql');
    expect(post!.parentSpanId ?? '').toBe('');
    expect(responses.graphql!.headers.get('traceparent')).toBe(`00-${post!.traceId}-${post!.spanId}-01`);
    const [near] = named('graphql query NearVail');
    expect(near!.parentSpanId).toBe(post!.spanId);
    // Its loaders' batches: three ZIPs asked for in a list are one batch of three keys (the
    // resorts near the ZIP come from the snapshots the warm-up built: no batch).
    const batches = childrenOf(near!).filter((s) => s.name.startsWith('load '));
    expect(batches.map((s) => s.name)).toEqual(['load zipByCode']);
    expect(batches[0]!.attributes).toMatchObject({ 'db.system': 'sqlite', 'loader.keys': 3 });
  });

  it('provider calls are spans in the request that made them, with their retries', () => {
    expect(responses.history!.status).toBe(200);
    const traceOf = (r: Response) => r.headers.get('traceparent')!.split('-')[1];
    const history = named('GET /api/resorts/{id}/history').find((s) => s.traceId === traceOf(responses.history!));
    const calls = spans.filter((s) => s.name === 'upstream open-meteo' && s.traceId === history!.traceId);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]!.attributes).toMatchObject({ 'upstream.provider': 'open-meteo', 'upstream.circuit_open': false });
    expect(calls.map((s) => String(s.attributes['url.full']))).toContainEqual(expect.stringContaining('/v1/archive'));

    expect(responses.retried!.status).toBe(200);
    // The retried request's span, by the trace its answer names (not by the order spans arrived in).
    const retried = named('GET /api/resorts/{id}/history').find((s) => s.traceId === traceOf(responses.retried!))!;
    expect(retried).toBeDefined();
    expect(retried.traceId).not.toBe(history!.traceId);
    const retriedCalls = spans.filter((s) => s.name === 'upstream open-meteo' && s.traceId === retried.traceId);
    expect(retriedCalls.flatMap((s) => s.events.map((e) => e.name))).toContain('retry');
  });

  it('a sync run is a span of its own with its provider calls under it', () => {
    expect(responses.sync!.status).toBe(200);
    const [run] = spans.filter((s) => s.name.startsWith('sync run '));
    expect(run!.attributes).toMatchObject({ 'sync.trigger': 'MANUAL' });
    expect(Number(run!.attributes['sync.resorts'])).toBe(SYNC_RESORTS.length);
    expect(spans.filter((s) => s.traceId === run!.traceId && s.name === 'upstream open-meteo').length).toBeGreaterThan(0);
  });

  it('log lines carry the trace id; probes and the warm-up make no spans', () => {
    const line = log.split('\n').find((l) => l.includes('"url":"/api/zip/90210"'));
    expect(JSON.parse(line!)).toMatchObject({ traceId: CALLER_TRACE, status: 200 });
    for (const probe of [responses.readyz!, responses.livez!]) {
      expect(probe.status).toBe(200);
      expect(probe.headers.get('traceparent')).toBeNull();
    }
    expect(spans.filter((s) => /readyz|livez/.test(s.name) || /readyz|livez/.test(String(s.attributes['http.route'])))).toEqual([]);
    expect(spans.length).toBeGreaterThan(0);
    // Every span belongs to a request's trace or a sync run's: none from the warm-up's operations.
    const roots = spans.filter((s) => !s.parentSpanId || s.parentSpanId === CALLER_SPAN);
    expect(roots.every((s) => /^(GET|POST) \//.test(s.name) || s.name.startsWith('sync run '))).toBe(true);
  });
});

describe('without OTEL_*', () => {
  it('there is no tracing: no traceparent in answers', async () => {
    const app = await startTestServer();
    try {
      const r = await getJson(app, '/api/zip/90210', { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
      expect(r.status).toBe(200);
      expect(r.headers.get('traceparent')).toBeNull();
    } finally {
      await app.close();
    }
  });
});
