import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { expectProblem, getJson, privateDatabase, startTestServer, TEST_KEY } from './helpers/server.js';
import { everyDocumentedPath } from './helpers/paths.js';
import { spawnServer } from './helpers/process.js';
import { until } from './helpers/wait.js';

/** What a newcomer meets: the first key, the index, probes, and metrics for the operator. */

describe('a fresh install', () => {
  const freshDatabase = () => {
    const dbPath = privateDatabase('gateway-first-key-');
    const db = new Database(dbPath);
    db.exec('DELETE FROM key_usage; DELETE FROM api_keys;');
    db.close();
    return dbPath;
  };
  const FIRST = /one was created[^:]*: (szg_[\w-]+)/;

  it('shows a first key once, apart from the log (stderr and a file only its owner reads, which the log names); it answers; a restart says how many keys exist', async () => {
    const dbPath = freshDatabase();
    const file = path.join(path.dirname(dbPath), 'first-api-key.txt');
    const first = spawnServer(dbPath);
    let key: string;
    try {
      const base = await first.url;
      key = FIRST.exec(first.errors())?.[1] as string;
      expect(key, first.errors()).toBeDefined();
      expect(readFileSync(file, 'utf8').trim()).toBe(key);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const r = await fetch(`${base}/api/zip/90210`, { headers: { 'x-api-key': key } });
      expect(r.status).toBe(200);
      // It is an admin key: the operator's own.
      expect((await fetch(`${base}/metrics`, { headers: { 'x-api-key': key } })).status).toBe(200);
      // The index tells the truth about where this server's keys come from.
      const index = await (await fetch(`${base}/`, { headers: { accept: 'text/html' } })).text();
      expect(index).toContain('The first time the server started it printed a first key');
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
    // The log names the file and never holds the key (logs travel: collectors, tickets).
    expect(first.output()).not.toContain(key);
    expect(first.output()).toContain(`written to ${file}`);
    expect(first.output()).toMatch(/"msg":"request"/);

    const second = spawnServer(dbPath);
    try {
      await second.url;
      expect(second.output()).toMatch(/1 API key on file; create another with: npm run keys -- create --name NAME/);
      expect(second.output() + second.errors()).not.toMatch(/szg_/);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 60_000);

  it('shows it whatever LOG_LEVEL says: with LOG_LEVEL=silent the log is empty and the key still reaches the terminal', async () => {
    const server = spawnServer(freshDatabase(), { LOG_LEVEL: 'silent' });
    try {
      // Silent: no "serving" line to wait for; the key comes before the server listens.
      await until(
        async () => server.errors(),
        (text) => FIRST.test(text),
      );
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    expect(server.output()).toBe('');
    expect(FIRST.exec(server.errors())![1]).toMatch(/^szg_/);
  }, 60_000);
});

describe('the log', () => {
  it('each line carries its own fields only, nothing from the lines before it', async () => {
    const server = spawnServer(privateDatabase('gateway-log-lines-'), { API_KEYS: TEST_KEY });
    try {
      const base = await server.url;
      expect((await fetch(`${base}/api/zip/90210`, { headers: { 'x-api-key': TEST_KEY } })).status).toBe(200);
      expect((await fetch(`${base}/api/nope`, { headers: { 'x-api-key': TEST_KEY } })).status).toBe(404);
    } finally {
      server.child.kill('SIGTERM');
      expect((await server.exited).code).toBe(0);
    }
    const lines = server
      .output()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.map((l) => l.url)).toEqual(['/api/zip/90210', '/api/nope']);
    expect(requests[0]!.reqId).not.toBe(requests[1]!.reqId);
    // Lines written after the requests have their own fields and no request's (url, reqId, status).
    const shuttingDown = lines.find((l) => l.msg === 'shutting down');
    expect(Object.keys(shuttingDown!).sort()).toEqual(['graceMs', 'level', 'msg', 'service', 'signal', 'time']);
    const serving = lines.find((l) => String(l.msg).startsWith('serving REST'));
    expect(Object.keys(serving!).sort()).toEqual(['codeCache', 'level', 'msg', 'service', 'time', 'url']);
  });
});

describe('the first requests', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a 401 says how to get a key', async () => {
    const body = expectProblem(await getJson(app, '/api/zip/90210', { apiKey: null }), 401);
    expect(body.detail).toMatch(/x-api-key/);
    expect(body.detail).toMatch(/npm run keys -- create/);
  });

  it('GET / is an index: HTML for a browser, JSON otherwise, with the links a newcomer needs', async () => {
    const html = await fetch(`${app.url}/`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(200);
    const page = await html.text();
    for (const link of ['/graphql', '/docs', '/openapi.json']) expect(page).toContain(`href="${link}"`);
    // Started with API_KEYS (as the suite's servers are): no first key was printed, and it says so.
    expect(page).toContain("This server's keys are set by its operator (<code>API_KEYS</code>)");
    expect(page).not.toContain('printed a first key');
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const json = await getJson(app, '/', { apiKey: null });
    expect(json.status).toBe(200);
    expect(JSON.stringify(json.body)).toContain('/openapi.json');
  });

  it('the icon is served without a key, at /favicon.ico (which browsers ask for by themselves) too', async () => {
    for (const icon of ['/favicon.ico', '/favicon.svg']) {
      const r = await fetch(`${app.url}${icon}`);
      expect(r.status, icon).toBe(200);
      expect(r.headers.get('content-type')).toBe('image/svg+xml');
      expect(await r.text()).toMatch(/^<svg /);
    }
  });

  it('/livez and /readyz answer without a key, are not counted, and every documented path still needs one', async () => {
    for (let i = 0; i < 30; i++) {
      for (const probe of ['/livez', '/readyz', '/v1/livez']) {
        const r = await getJson(app, probe, { apiKey: null });
        expect(r.status).toBe(200);
        expect(r.headers.get('ratelimit-remaining')).toBeNull();
      }
    }
    expect((await getJson(app, '/readyz', { apiKey: null })).body).toEqual({ status: 'ready' });
    for (const { method, path } of everyDocumentedPath()) {
      expect((await getJson(app, path, { method, apiKey: null })).status, `${method} ${path}`).toBe(401);
    }
    expect((await getJson(app, '/health', { apiKey: null })).status).toBe(401);
  });

  it('a probe costs nothing from a key: the quota is the same before and after', async () => {
    const remaining = async () => Number((await getJson(app, '/api/states')).headers.get('ratelimit-remaining'));
    const before = await remaining();
    for (let i = 0; i < 10; i++) await getJson(app, '/readyz', { headers: { 'x-api-key': TEST_KEY } });
    expect(await remaining()).toBe(before - 1);
  });
});

describe('/metrics', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestServer({ privateDb: true, config: { apiKeys: [TEST_KEY, 'szg_plain_metrics_key'], apiAdminKeys: [TEST_KEY] } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('Prometheus text for an admin key (or a Bearer token): requests by route and status, latency, cache, key usage', async () => {
    await getJson(app, '/api/zip/90210');
    await getJson(app, '/api/zip/90210');
    await getJson(app, '/api/zip/00000');
    const r = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await r.text();
    const value = (pattern: RegExp) => Number(text.match(pattern)?.[1]);
    expect(value(/^http_requests_total\{[^}]*route="\/api\/zip\/:zip"[^}]*status="200"[^}]*\} (\d+)/m)).toBe(2);
    expect(value(/^http_requests_total\{[^}]*route="\/api\/zip\/:zip"[^}]*status="404"[^}]*\} (\d+)/m)).toBe(1);
    expect(text).toMatch(/^http_request_duration_seconds_bucket\{/m);
    expect(text).toMatch(/^response_cache_(hits|lookups)/m);
    expect(text).toMatch(/^sync_runs_total|^# TYPE sync_runs_total/m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
    expect(value(/^nodejs_eventloop_lag_seconds (\S+)/m)).toBeGreaterThanOrEqual(0);
    expect(value(/^nodejs_eventloop_lag_p99_seconds (\S+)/m)).toBeGreaterThan(0);
    // Each key's requests this month: the plain key's two, counted as they were made.
    for (let i = 0; i < 2; i++) await getJson(app, '/api/zip/90210', { apiKey: 'szg_plain_metrics_key' });
    const again = await (await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${TEST_KEY}` } })).text();
    const perKey = Object.fromEntries([...again.matchAll(/^api_key_requests_this_month\{key_id="(\d+)"\} (\d+)/gm)].map((m) => [m[1], Number(m[2])]));
    // Key 1 (the suite's): three lookups and two /metrics (the key check counts a request before
    // it is answered); key 2: its two lookups.
    expect(perKey).toEqual({ 1: 5, 2: 2 });
  });

  it('needs a key with the admin scope', async () => {
    expectProblem(await getJson(app, '/metrics', { apiKey: null }), 401);
    expectProblem(await getJson(app, '/metrics', { apiKey: 'szg_plain_metrics_key' }), 403);
  });
});
