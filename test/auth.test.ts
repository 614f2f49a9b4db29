import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { bundle } from './helpers/bundle.js';
import { ensureDatabase } from '../src/data/db/build.js';
import { expectProblem, getJson, startTestServer, TEST_KEY, privateDatabase } from './helpers/server.js';
import { until } from './helpers/wait.js';
import { runNow } from './helpers/clock.js';
import { everyDocumentedPath } from './helpers/paths.js';
import { keysCli, runCommand } from './helpers/process.js';
import { routes } from '../src/transports/rest/routes.js';

const privateDb = (): string => privateDatabase('gateway-auth-');

/** `npm run keys -- …` exactly as the README says it. */
const npmRunKeys = (dbPath: string, ...args: string[]) => runCommand(dbPath, ['npm', ['run', '--silent', 'keys', '--', ...args]]);

const GRAPHQL = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ zipStats { totalZips } }' }) };

describe('the auth matrix over every path', () => {
  let app: RunningApp;
  let dbPath: string;
  let revokedKey: string;
  beforeAll(async () => {
    dbPath = privateDb();
    const created = await keysCli(dbPath, 'create', '--name', 'soon-revoked');
    revokedKey = created.stdout.match(/szg_[\w-]+/)![0];
    expect((await keysCli(dbPath, 'revoke', 'soon-revoked')).status).toBe(0);
    app = await startTestServer({ dbPath });
  });
  afterAll(() => app.close());

  const paths = everyDocumentedPath();

  it('covers every documented path: the route table is exactly the two documents’ list, and the lookups added since', () => {
    // Written out from the ZIP and ski resort documents (and docs/rest-api.md's additions), not from the table it checks.
    const DOCUMENTED = [
      'GET /api/zip/:from/distance/:to',
      'GET /api/zips',
      'GET /api/zips/near',
      'GET /health',
      'GET /api/stats',
      'GET /api/zip/:zip',
      'GET /api/zip/:zip/nearby',
      'GET /api/states',
      'GET /api/states/:state/zipcodes',
      'GET /api/city/:city',
      'GET /api/resorts',
      'GET /api/resorts/:id',
      'GET /api/resorts/:id/weather',
      'GET /api/resorts/:id/trails',
      'GET /api/resorts/:id/lifts',
      'GET /api/resorts/:id/compare',
      'GET /api/resorts/:id/history',
      'GET /api/conditions/top-snow',
      'GET /api/conditions/open-now',
      'GET /api/conditions/storm-watch',
      'GET /api/insights/snow',
      'GET /api/sync/status',
      'POST /api/sync/run',
      'GET /api/sync/history',
    ];
    expect(routes.map((r) => `${r.method ?? 'GET'} ${r.path}`).sort()).toEqual([...DOCUMENTED].sort());
    expect(paths).toHaveLength(DOCUMENTED.length);
  });

  for (const { method, path: p } of paths) {
    it(`${method} ${p}: no key, wrong key and revoked key are 401; a good key gets through`, async () => {
      for (const prefix of ['', '/v1']) {
        const none = expectProblem(await getJson(app, prefix + p, { method, apiKey: null }), 401);
        expect(none.code).toBe('UNAUTHENTICATED');
        expectProblem(await getJson(app, prefix + p, { method, apiKey: 'szg_not_a_real_key' }), 401);
        const revoked = expectProblem(await getJson(app, prefix + p, { method, apiKey: revokedKey }), 401);
        expect(revoked.detail).toMatch(/revoked/);
        const ok = await getJson(app, prefix + p, { method });
        expect(ok.status, prefix + p).toBe(200);
        expect(ok.headers.get('ratelimit-limit')).toBe('100000000');
      }
    });
  }

  it('POST /graphql: no key, wrong key and revoked key are 401; a good key gets through', async () => {
    expectProblem(await getJson(app, '/graphql', { ...GRAPHQL, apiKey: null }), 401);
    expectProblem(await getJson(app, '/graphql', { ...GRAPHQL, apiKey: 'nope' }), 401);
    expectProblem(await getJson(app, '/graphql', { ...GRAPHQL, apiKey: revokedKey }), 401);
    const ok = await getJson(app, '/graphql', GRAPHQL);
    expect(ok.status).toBe(200);
    expect(ok.body.data.zipStats.totalZips).toBe(40_977);
  });

  it('the GraphiQL page loads without a key and says where the key goes', async () => {
    const page = await fetch(`${app.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('x-api-key');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('stores only hashes, never a key: not in any table read through SQLite, not in the file or its WAL', () => {
    const db = new Database(dbPath, { readonly: true });
    let everything = '';
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
      for (const table of tables) everything += JSON.stringify(db.prepare(`SELECT * FROM "${table}"`).raw().all());
    } finally {
      db.close();
    }
    // The keys are in there, as hashes (so the dump did read the key table).
    expect(everything).toContain(createHash('sha256').update(TEST_KEY).digest('hex'));
    for (const file of [dbPath, `${dbPath}-wal`].filter((f) => existsSync(f))) everything += readFileSync(file).toString('latin1');
    expect(everything).not.toContain(revokedKey);
    expect(everything).not.toContain(TEST_KEY);
  });
});

describe('keys made with the CLI', () => {
  it('create, list and revoke work against a running server', async () => {
    const dbPath = privateDb();
    const app = await startTestServer({ dbPath });
    try {
      const created = await npmRunKeys(dbPath, 'create', '--name', 'partner', '--plan', 'pro', '--quota', '500', '--rate', '5');
      expect(created.status).toBe(0);
      const key = created.stdout.match(/szg_[\w-]+/)![0];
      const ok = await getJson(app, '/api/stats', { apiKey: key });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('500');
      expect(ok.headers.get('ratelimit-remaining')).toBe('499');
      // The server writes usage once a second; `keys list` shows it then.
      const list = await until(
        () => keysCli(dbPath, 'list'),
        (l) => /partner\s+pro\s+1\/500/.test(l.stdout),
        20_000,
        200,
      );
      expect(list.stdout).toMatch(/partner\s+pro\s+1\/500 this month\s+5\/s\s+active/);
      expect((await keysCli(dbPath, 'revoke', 'partner')).status).toBe(0);
      expectProblem(await getJson(app, '/api/stats', { apiKey: key }), 401);
      expect((await keysCli(dbPath, 'revoke', 'partner')).status).toBe(2);
      expect((await keysCli(dbPath, 'create')).status).toBe(2);
      expect((await keysCli(dbPath, 'create', '--name', 'x', '--quota', '-1')).status).toBe(2);
    } finally {
      await app.close();
    }
  });
});

describe('keys made with the CLI: defaults, scopes and revocation by id', () => {
  it('a key made with no limits has the documented defaults (10,000 a month, 25 a second); --scope admin may read /metrics; revoke takes the id that list shows', async () => {
    const dbPath = privateDb();
    const app = await startTestServer({ dbPath });
    try {
      const plain = (await keysCli(dbPath, 'create', '--name', 'plain')).stdout.match(/szg_[\w-]+/)![0];
      const admin = (await keysCli(dbPath, 'create', '--name', 'operator', '--scope', 'admin')).stdout.match(/szg_[\w-]+/)![0];
      const ok = await getJson(app, '/api/stats', { apiKey: plain });
      expect(ok.headers.get('ratelimit-policy')).toMatch(/^10000;w=\d+, 25;w=1$/);
      expectProblem(await getJson(app, '/metrics', { apiKey: plain }), 403);
      expect((await getJson(app, '/metrics', { apiKey: admin })).status).toBe(200);
      const listed = (await keysCli(dbPath, 'list')).stdout;
      const id = listed.match(/^\s*(\d+)\s+operator\s/m)![1]!;
      expect(listed).toMatch(/operator .*scopes: admin/);
      expect((await keysCli(dbPath, 'revoke', '--id', id)).status).toBe(0);
      expectProblem(await getJson(app, '/metrics', { apiKey: admin }), 401);
      expect((await getJson(app, '/api/stats', { apiKey: plain })).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('quotas and rate limits', () => {
  // Each test has a key of its own: copies of the shared database carry other tests' usage.
  const ownKey = () => `szg_quota_${Math.random().toString(36).slice(2)}`;

  it('the monthly quota gives 429 with the headers, and resets with the next month', async () => {
    let now = new Date('2027-01-31T23:59:00Z');
    const apiKey = ownKey();
    const app = await startTestServer({ privateDb: true, now: () => now, config: { apiKeys: [apiKey], apiKeysQuota: 3 } });
    try {
      const remaining: (string | null)[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await getJson(app, '/api/stats', { apiKey });
        expect(r.status).toBe(200);
        remaining.push(r.headers.get('ratelimit-remaining'));
        now = new Date(now.getTime() + 2000);
      }
      expect(remaining).toEqual(['2', '1', '0']);
      const over = await getJson(app, '/api/stats', { apiKey });
      const p = expectProblem(over, 429);
      expect(p.code).toBe('RATE_LIMITED');
      expect(over.headers.get('ratelimit-limit')).toBe('3');
      expect(over.headers.get('ratelimit-remaining')).toBe('0');
      const reset = Number(over.headers.get('ratelimit-reset'));
      expect(Number(over.headers.get('retry-after'))).toBe(reset);
      // 23:59:06 on the last day: 54 seconds to February.
      expect(reset).toBe(54);
      expectProblem(await getJson(app, '/graphql', { ...GRAPHQL, apiKey }), 429);
      now = new Date('2027-02-01T00:00:01Z');
      const fresh = await getJson(app, '/api/stats', { apiKey });
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get('ratelimit-remaining')).toBe('2');
    } finally {
      await app.close();
    }
  });

  it('usage survives a restart (and a rebuild of the database)', async () => {
    const dbPath = privateDb();
    const now = () => new Date('2027-03-10T12:00:00Z');
    const apiKey = ownKey();
    const first = await startTestServer({ dbPath, now, config: { apiKeys: [apiKey], apiKeysQuota: 10 } });
    for (let i = 0; i < 4; i++) expect((await getJson(first, '/api/stats', { apiKey })).status).toBe(200);
    await first.close();

    const second = await startTestServer({ dbPath, now, config: { apiKeys: [apiKey], apiKeysQuota: 10 } });
    expect((await getJson(second, '/api/stats', { apiKey })).headers.get('ratelimit-remaining')).toBe('5');
    await second.close();

    // Force a rebuild (another schema version): keys and usage are carried over.
    const db = new Database(dbPath);
    db.pragma('user_version = 0');
    db.close();
    expect(ensureDatabase(dbPath)).toBe(true);
    const third = await startTestServer({ dbPath, now, config: { apiKeys: [apiKey], apiKeysQuota: 10 } });
    try {
      expect((await getJson(third, '/api/stats', { apiKey })).headers.get('ratelimit-remaining')).toBe('4');
    } finally {
      await third.close();
    }
  });

  it('the per-second rate limit gives 429 with Retry-After: 1 and does not use up the quota', async () => {
    let now = new Date('2027-01-10T10:00:00.100Z');
    const apiKey = ownKey();
    const app = await startTestServer({ privateDb: true, now: () => now, config: { apiKeys: [apiKey], apiKeysQuota: 100, apiKeysRate: 2 } });
    try {
      expect((await getJson(app, '/api/stats', { apiKey })).status).toBe(200);
      expect((await getJson(app, '/api/stats', { apiKey })).status).toBe(200);
      const limited = await getJson(app, '/api/stats', { apiKey });
      expectProblem(limited, 429);
      expect(limited.headers.get('retry-after')).toBe('1');
      expect(limited.headers.get('ratelimit-limit')).toBe('2');
      now = new Date('2027-01-10T10:00:01.100Z');
      const next = await getJson(app, '/api/stats', { apiKey });
      expect(next.status).toBe(200);
      expect(next.headers.get('ratelimit-remaining')).toBe('97');
    } finally {
      await app.close();
    }
  });
});

describe('AUTH=off', () => {
  it('lets requests in without a key and warns loudly in the log', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write: (chunk, _e, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const { startApp, loadConfig } = await bundle();
    const app = await startApp({
      config: { ...loadConfig({ AUTH: 'off' }), port: 0, host: '127.0.0.1', dbPath: privateDb(), logLevel: 'info' },
      now: runNow,
      logger,
    });
    try {
      const stats = await getJson(app, '/api/stats', { apiKey: null });
      expect(stats.status).toBe(200);
      const logged = lines.map((l) => JSON.parse(l));
      expect(logged.filter((l) => /AUTH=off/.test(l.msg)).map((l) => [l.level, l.msg])).toEqual([
        [40, 'AUTH=off: API keys are NOT checked. Never run like this outside local development.'],
      ]);
      // The request is still logged, under the id its answer carries.
      const requests = logged.filter((l) => l.msg === 'request');
      expect(requests.map((l) => [l.url, l.status, l.reqId])).toEqual([['/api/stats', 200, stats.headers.get('x-request-id')]]);
      expect(stats.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    } finally {
      await app.close();
    }
  });
});
