import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clockFrom } from '../../src/lib/clock.js';
import { EnvSchema, loadConfig, type Config } from '../../src/lib/config.js';

/**
 * Every variable of docs/configuration.md's table, set to something other than its default,
 * lands where the server reads it; a bad value stops the start with the variable's name.
 */
const SET: Record<string, [string, (c: Config) => unknown, unknown, Record<string, string>?]> = {
  PORT: ['8081', (c) => c.port, 8081],
  HOST: ['127.0.0.1', (c) => c.host, '127.0.0.1'],
  DB_PATH: ['/srv/g.sqlite', (c) => c.dbPath, '/srv/g.sqlite'],
  LOG_LEVEL: ['warn', (c) => c.logLevel, 'warn'],
  AUTH: ['off', (c) => c.auth, false],
  API_KEYS: ['a, b,,c', (c) => c.apiKeys, ['a', 'b', 'c']],
  API_ADMIN_KEYS: ['ops', (c) => c.apiAdminKeys, ['ops']],
  API_KEYS_QUOTA: ['77', (c) => c.apiKeysQuota, 77],
  API_KEYS_RATE: ['9', (c) => c.apiKeysRate, 9],
  COST_UNITS_PER_REQUEST: ['500', (c) => c.costBudget.unitsPerRequest, 500],
  COST_WINDOW_SECONDS: ['60', (c) => c.costBudget.windowSeconds, 60],
  PROVIDER: ['open-meteo', (c) => c.provider, 'open-meteo'],
  OPEN_METEO_FORECAST_URL: ['http://127.0.0.1:9/f', (c) => c.openMeteo.forecast, 'http://127.0.0.1:9/f'],
  OPEN_METEO_ARCHIVE_URL: ['http://127.0.0.1:9/a', (c) => c.openMeteo.archive, 'http://127.0.0.1:9/a'],
  LIFTIE: ['on', (c) => c.liftie.enabled, true],
  LIFTIE_URL: ['http://127.0.0.1:9/l', (c) => c.liftie.url, 'http://127.0.0.1:9/l'],
  UPSTREAM_TIMEOUT_MS: ['900', (c) => c.upstream.timeoutMs, 900],
  UPSTREAM_RETRIES: ['0', (c) => c.upstream.retries, 0],
  UPSTREAM_CONCURRENCY: ['8', (c) => c.upstream.concurrency, 8],
  UPSTREAM_BREAKER_RESET_MS: ['5000', (c) => c.upstream.resetTimeoutMs, 5000],
  UPSTREAM_MAX_BYTES: ['2048', (c) => c.upstream.maxBytes, 2048],
  SYNC_INTERVAL_MINUTES: ['0', (c) => c.syncIntervalMinutes, 0],
  SYNC_RUN_BUDGET_MS: ['60000', (c) => c.syncRunBudgetMs, 60_000],
  REDIS_URL: ['unix:///run/redis.sock', (c) => c.redis?.target, { kind: 'url', url: 'unix:///run/redis.sock' }],
  REDIS_SENTINELS: [
    '10.0.0.1:26379,s2.example:26380,[fd00::1]:26381',
    (c) => c.redis?.target,
    {
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 's2.example', port: 26380 },
        { host: 'fd00::1', port: 26381 },
      ],
      name: 'mymaster',
      tls: false,
    },
  ],
  REDIS_SENTINEL_NAME: ['cache', (c) => c.redis?.target, expect.objectContaining({ name: 'cache' }), { REDIS_SENTINELS: 'h:26379' }],
  REDIS_PASSWORD: ['s3cret', (c) => c.redis?.target, expect.objectContaining({ password: 's3cret' }), { REDIS_SENTINELS: 'h:26379' }],
  REDIS_SENTINEL_PASSWORD: ['t0p', (c) => c.redis?.target, expect.objectContaining({ sentinelPassword: 't0p' }), { REDIS_SENTINELS: 'h:26379' }],
  REDIS_TLS: ['on', (c) => c.redis?.target, expect.objectContaining({ tls: true }), { REDIS_SENTINELS: 'h:26379' }],
  REPLICA_ID: ['eu-1', (c) => c.redis?.replicaId, 'eu-1', { REDIS_URL: 'redis://h:6379' }],
  CLOCK_START: ['2027-07-01T08:00:00Z', (c) => c.clockStart, '2027-07-01T08:00:00Z'],
  CORS_ORIGINS: ['https://a.example, https://b.example', (c) => c.corsOrigins, ['https://a.example', 'https://b.example']],
  GRAPHQL_INTROSPECTION: ['off', (c) => c.introspection, false],
  GRAPHQL_TRUSTED_DOCUMENTS: ['app/persisted-documents.json', (c) => c.trustedDocuments.manifest, 'app/persisted-documents.json'],
  GRAPHQL_TRUSTED_ONLY: ['on', (c) => c.trustedDocuments.only, true, { GRAPHQL_TRUSTED_DOCUMENTS: 'm.json' }],
  GRAPHQL_BATCH_MAX: ['3', (c) => c.graphql.maxBatch, 3],
  GRAPHQL_WS_INIT_TIMEOUT_MS: ['500', (c) => c.graphql.wsInitTimeoutMs, 500],
  GRAPHQL_WS_IDLE_TIMEOUT_MS: ['5000', (c) => c.graphql.wsIdleTimeoutMs, 5000],
  MCP_SESSION_IDLE_TIMEOUT_MS: ['7000', (c) => c.mcp.sessionIdleTimeoutMs, 7000],
  LIVE_CHECK_MS: ['60000', (c) => c.graphql.liveCheckMs, 60000],
  NODE_ENV: ['production', (c) => c.introspection, false],
  MAX_BODY_BYTES: ['4096', (c) => c.maxBodyBytes, 4096],
  EXECUTION_TIMEOUT_MS: ['2500', (c) => c.executionTimeoutMs, 2500],
  RESPONSE_CACHE_MB: ['0.5', (c) => c.responseCacheBytes, 524_288],
  OTEL_EXPORTER_OTLP_ENDPOINT: ['http://127.0.0.1:4318', (c) => c.tracing, true],
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ['http://127.0.0.1:4318/v1/traces', (c) => c.tracing, true],
  OTEL_SDK_DISABLED: ['true', (c) => c.tracing, false, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }],
  OTEL_TRACES_EXPORTER: ['none', (c) => c.tracing, false, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }],
  WARM_UP_ROUNDS: ['0', (c) => c.warmUpRounds, 0],
  MAX_CONNECTIONS: ['100', (c) => [c.connections.maxConnections, c.streams.total], [100, 50]],
  HEADERS_TIMEOUT_MS: ['2000', (c) => c.connections.headersTimeoutMs, 2000],
  REQUEST_TIMEOUT_MS: ['7000', (c) => c.connections.requestTimeoutMs, 7000],
  KEEP_ALIVE_TIMEOUT_MS: ['1500', (c) => c.connections.keepAliveTimeoutMs, 1500],
  SHUTDOWN_GRACE_MS: ['0', (c) => c.shutdownGraceMs, 0],
  STREAMS_PER_KEY: ['2', (c) => c.streams.perKey, 2],
  MAX_STREAMS: ['10', (c) => c.streams.total, 10],
  STREAM_MAX_LIFETIME_MS: ['60000', (c) => c.streams.maxLifetimeMs, 60_000],
  STREAMS_PER_ADDRESS: ['3', (c) => c.streams.perAddress, 3],
  STREAM_MAX_BUFFERED_BYTES: ['65536', (c) => c.streams.maxBufferedBytes, 65_536],
  WS_PENDING_PER_ADDRESS: ['2', (c) => c.pendingSockets.perAddress, 2],
  WS_PENDING_MAX: ['20', (c) => c.pendingSockets.total, 20],
};

const PAGE = readFileSync(path.join(import.meta.dirname, '../../docs/configuration.md'), 'utf8');
/** The variables named in the first column of docs/configuration.md's table. */
const documented = () => {
  const table = PAGE.slice(PAGE.indexOf('| variable |')).split('\n\n')[0]!;
  return table
    .split('\n')
    .slice(2)
    .flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!));
};

describe('configuration', () => {
  it('docs/configuration.md documents exactly the variables the server reads, and this test sets each', () => {
    const read = Object.keys(EnvSchema.shape).sort();
    expect(documented().sort()).toEqual(read.filter((v) => v !== 'NODE_ENV').sort());
    expect(Object.keys(SET).sort()).toEqual(read);
  });

  it('each variable reaches the setting it names', () => {
    for (const [name, [value, read, expected, alongside = {}]] of Object.entries(SET)) {
      expect(read(loadConfig({ ...alongside, [name]: value })), name).toEqual(expected);
      // And the default is something else: the variable is what changed it.
      expect(read(loadConfig(alongside)), `${name}'s default`).not.toEqual(expected);
    }
  });

  it('the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 4000,
      host: '0.0.0.0',
      dbPath: 'data/gateway.sqlite',
      logLevel: 'info',
      auth: true,
      apiKeysQuota: 10_000,
      apiKeysRate: 25,
      costBudget: { unitsPerRequest: 2000, windowSeconds: 10 },
      provider: 'simulated',
      corsOrigins: ['*'],
      introspection: true,
      trustedDocuments: { manifest: null, only: false },
      maxBodyBytes: 100_000,
      executionTimeoutMs: 10_000,
      responseCacheBytes: 6 * 1024 * 1024,
      warmUpRounds: 20,
      shutdownGraceMs: 10_000,
      connections: { maxConnections: 4096, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5000 },
      streams: { perKey: 4, perAddress: 32, total: 2048, maxLifetimeMs: 3_600_000, maxBufferedBytes: 1024 * 1024 },
      pendingSockets: { perAddress: 8, total: 256 },
      syncIntervalMinutes: 60,
      syncRunBudgetMs: 300_000,
      upstream: { timeoutMs: 4000, retries: 2, concurrency: 4, resetTimeoutMs: 30_000, maxBytes: 8 * 1024 * 1024 },
      liftie: { enabled: false },
      redis: null,
      clockStart: null,
    });
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'on' }).introspection).toBe(true);
  });

  it('a bad value stops the start, naming the variable', () => {
    for (const [name, value] of [
      ['PORT', '70000'],
      ['LOG_LEVEL', 'loud'],
      ['AUTH', 'maybe'],
      ['API_KEYS_RATE', '0'],
      ['PROVIDER', 'met-office'],
      ['OPEN_METEO_FORECAST_URL', 'not a url'],
      ['REDIS_URL', 'http://h'],
      ['REDIS_SENTINELS', 'sentinel-without-port'],
      ['REDIS_SENTINELS', 'h:26379,h:70000'],
      ['REDIS_SENTINELS', 'fd00::1:26379'],
      ['CLOCK_START', 'next tuesday'],
      ['UPSTREAM_RETRIES', '6'],
      ['MAX_CONNECTIONS', '1'],
      ['RESPONSE_CACHE_MB', '-1'],
      ['STREAMS_PER_KEY', '0'],
      ['STREAM_MAX_BUFFERED_BYTES', '100'],
      ['WS_PENDING_MAX', '2048'],
      ['WARM_UP_ROUNDS', '1001'],
    ]) {
      expect(() => loadConfig({ [name!]: value }), name).toThrow(new RegExp(`^Invalid environment:\\n${name}: `));
    }
    // One line for one bad value, whatever is wrong with it.
    for (const value of ['sentinel-without-port', 'h:0', 'h:26379,,h:26380'])
      expect(() => loadConfig({ REDIS_SENTINELS: value })).toThrow(
        /^Invalid environment:\nREDIS_SENTINELS: host:port,host:port… \(the Sentinels; ports from 1 to 65535; an IPv6 address in brackets, \[::1\]:26379\)$/,
      );
    expect(() => loadConfig({ GRAPHQL_TRUSTED_ONLY: 'on' })).toThrow(/GRAPHQL_TRUSTED_ONLY: needs GRAPHQL_TRUSTED_DOCUMENTS/);
    expect(() => loadConfig({ REDIS_URL: 'redis://h:6379', REDIS_SENTINELS: 'h:26379' })).toThrow(/REDIS_URL \/ REDIS_SENTINELS: set one/);
    expect(() => loadConfig({ MAX_CONNECTIONS: '10', MAX_STREAMS: '10' })).toThrow(/MAX_STREAMS: must be below MAX_CONNECTIONS \(10\)/);
  });
});

describe('the clock', () => {
  it('unset, the system clock; CLOCK_START reads that instant at start and runs on in real time', () => {
    let wall = Date.parse('2026-11-24T10:00:00Z');
    const clock = clockFrom('2027-01-15T12:00:00Z', () => wall);
    expect(clock().toISOString()).toBe('2027-01-15T12:00:00.000Z');
    wall += 90_500;
    expect(clock().toISOString()).toBe('2027-01-15T12:01:30.500Z');
    const system = clockFrom(null)().getTime();
    expect(Math.abs(system - Date.now())).toBeLessThan(1000);
  });
});
