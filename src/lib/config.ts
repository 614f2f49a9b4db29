import { hostname } from 'node:os';
import { z } from 'zod';
import { SetupError } from './errors.js';

const onOff = z.enum(['on', 'off', 'true', 'false', '1', '0']).transform((v) => v === 'on' || v === 'true' || v === '1');

const list = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

/** Environment, validated once at start-up so a typo fails loudly instead of at the first request. */
export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DB_PATH: z.string().min(1).default('data/gateway.sqlite'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  AUTH: onOff.default(true),
  API_KEYS: list.default([]),
  API_ADMIN_KEYS: list.default([]),
  API_KEYS_QUOTA: z.coerce.number().int().min(0).default(10_000),
  API_KEYS_RATE: z.coerce.number().int().min(1).default(25),
  CORS_ORIGINS: list.default(['*']),
  GRAPHQL_INTROSPECTION: onOff.optional(),
  GRAPHQL_TRUSTED_DOCUMENTS: z.string().min(1).optional(),
  GRAPHQL_TRUSTED_ONLY: onOff.default(false),
  GRAPHQL_BATCH_MAX: z.coerce.number().int().min(1).max(100).default(10),
  GRAPHQL_WS_INIT_TIMEOUT_MS: z.coerce.number().int().min(100).default(3_000),
  GRAPHQL_WS_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  MCP_SESSION_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
  LIVE_CHECK_MS: z.coerce.number().int().min(100).max(3_600_000).default(1000),
  NODE_ENV: z.string().default('development'),
  MAX_CONNECTIONS: z.coerce.number().int().min(2).default(4096),
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  STREAMS_PER_KEY: z.coerce.number().int().min(1).max(1_000_000).default(4),
  STREAMS_PER_ADDRESS: z.coerce.number().int().min(1).default(32),
  STREAM_MAX_BUFFERED_BYTES: z.coerce
    .number()
    .int()
    .min(16 * 1024)
    .default(1024 * 1024),
  WS_PENDING_PER_ADDRESS: z.coerce.number().int().min(1).default(8),
  WS_PENDING_MAX: z.coerce.number().int().min(1).optional(),
  MAX_STREAMS: z.coerce.number().int().min(1).optional(),
  STREAM_MAX_LIFETIME_MS: z.coerce.number().int().min(1000).default(3_600_000),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(100_000),
  EXECUTION_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  COST_UNITS_PER_REQUEST: z.coerce.number().int().min(100).default(2_000),
  COST_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  // Sized so that a process stays within its memory target through `npm run bench` BENCHMARKS.md, design figures: response cache).
  RESPONSE_CACHE_MB: z.coerce.number().min(0).max(4096).default(6),
  // OpenTelemetry's own variables: tracing is on when one names an OTLP endpoint (the SDK reads
  // these and the rest of OTEL_* itself, see telemetry/sdk.ts).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_SDK_DISABLED: z.enum(['true', 'false']).optional(),
  OTEL_TRACES_EXPORTER: z.string().optional(),
  WARM_UP_ROUNDS: z.coerce.number().int().min(0).max(1000).default(20),
  PROVIDER: z.enum(['simulated', 'open-meteo']).default('simulated'),
  OPEN_METEO_FORECAST_URL: z.url().default('https://api.open-meteo.com/v1/forecast'),
  OPEN_METEO_ARCHIVE_URL: z.url().default('https://archive-api.open-meteo.com/v1/archive'),
  LIFTIE: onOff.default(false),
  LIFTIE_URL: z.url().default('https://liftie.info/api/resort'),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(50).default(4_000),
  UPSTREAM_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  SYNC_RUN_BUDGET_MS: z.coerce.number().int().min(1000).default(300_000),
  UPSTREAM_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  UPSTREAM_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4),
  UPSTREAM_BREAKER_RESET_MS: z.coerce.number().int().min(10).default(30_000),
  SYNC_INTERVAL_MINUTES: z.coerce.number().min(0).default(60),
  REDIS_URL: z
    .string()
    .regex(/^(rediss?:\/\/|unix:\/\/\/)/, 'a redis://, rediss:// or unix:///path URL')
    // Parsed here as the client will parse it: a bad port, host, escape or database is this sentence, not a stack from the client.
    .refine(redisUrlParses, { error: 'a URL that parses (a host, a port from 1 to 65535, user and password validly %-escaped, a database number)' })
    .optional(),
  /** Redis through Sentinel instead of REDIS_URL: the Sentinels' host:port list, the primary's name, passwords, TLS. */
  REDIS_SENTINELS: z
    .string()
    .refine((s) => s.split(',').every((hp) => sentinelAddress(hp) !== null), {
      error: 'host:port,host:port… (the Sentinels; ports from 1 to 65535; an IPv6 address in brackets, [::1]:26379)',
    })
    .optional(),
  REDIS_SENTINEL_NAME: z.string().min(1).max(200).default('mymaster'),
  REDIS_PASSWORD: z.string().min(1).optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  REDIS_TLS: onOff.default(false),
  REPLICA_ID: z.string().min(1).max(100).optional(),
  CLOCK_START: z.iso.datetime({ offset: true }).optional(),
});

/** What ioredis reads of a URL, read the same way first: it throws (a stack) where this says false. */
function redisUrlParses(text: string): boolean {
  if (text.startsWith('unix://')) return true;
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  if (!url.hostname || url.port === '0') return false;
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    return false;
  }
  const db = url.searchParams.get('db') ?? url.pathname.slice(1);
  return db === '' || /^\d{1,5}$/.test(db);
}

/** The shortest key the environment may give a production server. */
export const MIN_KEY_CHARS = 16;

/** Words of the placeholders examples and docs use for keys: anyone can read them. */
const PLACEHOLDER = /change-?me|example|placeholder|your-?key|dev-key|secret-key|not-a-real/i;

/** A key nobody should be given in production: short, or an example's placeholder. */
export function isWeakKey(key: string): boolean {
  return key.length < MIN_KEY_CHARS || PLACEHOLDER.test(key);
}

export interface Config {
  port: number;
  host: string;
  dbPath: string;
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
  /** Count every SQL statement executed (tests use it to prove batching); off in production. */
  countStatements: boolean;
  /** Off only for local development: every request is let in, and the log says so loudly. */
  auth: boolean;
  /** Keys added at start (development and tests), with their monthly quota and per-second rate. */
  apiKeys: string[];
  /** Keys added at start with the admin scope (may start sync runs). */
  apiAdminKeys: string[];
  apiKeysQuota: number;
  apiKeysRate: number;
  /** Allowed browser origins; ["*"] allows any (no cookies are used, keys travel in a header). */
  corsOrigins: string[];
  /** Introspection and "did you mean" suggestions; off by default when NODE_ENV=production. */
  introspection: boolean;
  /** Trusted documents: the manifest's path (hash → document, codegen's persisted-documents.json), and whether only those run. */
  trustedDocuments: { manifest: string | null; only: boolean };
  /**
   * GraphQL's transports: operations per batch (an array of requests in one POST); a WebSocket's
   * time to send connection_init, and how long it may sit with no operation and no message; how
   * often SSE writes a heartbeat and a WebSocket is pinged (12 s, not an environment setting).
   */
  /** liveCheckMs: how often live conditions look whether the hour turned (or the data moved without an event). */
  graphql: { maxBatch: number; wsInitTimeoutMs: number; wsIdleTimeoutMs: number; heartbeatMs: number; liveCheckMs: number };
  /** MCP at /mcp: how long a session with no request and nothing subscribed lasts. */
  mcp: { sessionIdleTimeoutMs: number };
  maxBodyBytes: number;
  connections: { maxConnections: number; headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  /**
   * Streams (SSE, multipart, WebSocket subscriptions): per key unless the key says, per client
   * address within a key, in all (below maxConnections), how long one may last, and the unsent
   * bytes one may have waiting before it is cut.
   */
  streams: { perKey: number; perAddress: number; total: number; maxLifetimeMs: number; maxBufferedBytes: number };
  /**
   * WebSockets not yet identified by a key (keyless upgrades before connection_init): per client
   * address and in all, well below maxConnections; past either a new one is refused at the handshake.
   */
  pendingSockets: { perAddress: number; total: number };
  /** On SIGTERM: how long requests in flight may finish before every connection is closed. */
  shutdownGraceMs: number;
  executionTimeoutMs: number;
  /** Cost units (GraphQL complexity) a key may spend per window: this many per request its rate allows. */
  costBudget: { unitsPerRequest: number; windowSeconds: number };
  /** Bytes of serialized GET answers kept (0 turns the response cache off). */
  responseCacheBytes: number;
  /** OpenTelemetry traces over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT set). */
  tracing: boolean;
  /**
   * Resorts whose snapshots are built per turn of the event loop (250: the curated catalogue in
   * one). Not an environment setting; tests lower it to build imported-scale lists in many turns.
   */
  snapshotChunk: number;
  /**
   * How long after listening the warming starts (a moment: the first requests are answered
   * before it). Not an environment setting; the suite's in-process servers use 0.
   */
  warmUpDelayMs: number;
  /**
   * How many times each documented GET route runs in-process before the server says it is ready
   * (warm-up.ts): enough for V8 to optimize the request path (20, WARM_UP_ROUNDS). 0 runs none and
   * builds nothing ahead: ready sooner for a fraction of the start-up CPU and memory, the ZIP table,
   * the indexes and each operation built by the first request that needs them (the suite's
   * servers, which measure no first-request latency).
   */
  warmUpRounds: number;
  /** Where conditions and history come from: the offline generator or Open-Meteo. */
  provider: 'simulated' | 'open-meteo';
  openMeteo: { forecast: string; archive: string };
  /** Live lift status from Liftie for resorts that map to a Liftie id. */
  liftie: { enabled: boolean; url: string };
  upstream: {
    timeoutMs: number;
    retries: number;
    concurrency: number;
    backoffMs: number;
    resetTimeoutMs: number;
    maxBytes: number;
    /** Attempts within a minute before the breaker may open (default 5); a test of other failures sets it out of reach. */
    volumeThreshold?: number;
  };
  /** The longest a sync run may take; what is not fetched by then counts as failed. */
  syncRunBudgetMs: number;
  /** Minutes between scheduled sync runs; 0 turns the schedule off. */
  syncIntervalMinutes: number;
  /**
   * Replicas: with a Redis URL, keys, quotas, sync leadership, run records, published windows and
   * progress events are shared through it (src/cluster); without, everything is local.
   */
  redis: { target: RedisTarget; replicaId: string } | null;
  /** CLOCK_START: the instant the server's clock reads at start (src/clock.ts); null is the system clock. */
  clockStart: string | null;
}

/**
 * Where Redis is: a URL, or the Sentinels that know which node is the primary now (ioredis asks
 * them, and asks again after a failover).
 */
export type RedisTarget =
  | { kind: 'url'; url: string }
  | { kind: 'sentinel'; sentinels: { host: string; port: number }[]; name: string; password?: string; sentinelPassword?: string; tls: boolean };

/** One of REDIS_SENTINELS' entries, `host:port` or `[IPv6]:port`; null when it is neither. */
function sentinelAddress(entry: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s,:[\]]+)):(\d{1,5})$/.exec(entry);
  const port = Number(m?.[3]);
  return m && port >= 1 && port <= 65535 ? { host: (m[1] ?? m[2])!, port } : null;
}

function redisTarget(e: z.output<typeof EnvSchema>): RedisTarget | null {
  if (e.REDIS_URL) return { kind: 'url', url: e.REDIS_URL };
  if (!e.REDIS_SENTINELS) return null;
  const sentinels = e.REDIS_SENTINELS.split(',').map((hp) => sentinelAddress(hp)!);
  return {
    kind: 'sentinel',
    sentinels,
    name: e.REDIS_SENTINEL_NAME,
    ...(e.REDIS_PASSWORD ? { password: e.REDIS_PASSWORD } : {}),
    ...(e.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: e.REDIS_SENTINEL_PASSWORD } : {}),
    tls: e.REDIS_TLS,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new SetupError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  // Streams may take at most half of the connections by default: other requests always find one.
  const maxStreams = e.MAX_STREAMS ?? Math.max(1, Math.floor(e.MAX_CONNECTIONS / 2));
  // Sockets that have not said whose they are: a small pool, so they can never crowd out clients.
  const maxPending = e.WS_PENDING_MAX ?? Math.max(1, Math.min(256, Math.floor(e.MAX_CONNECTIONS / 16)));
  if (e.GRAPHQL_TRUSTED_ONLY && !e.GRAPHQL_TRUSTED_DOCUMENTS)
    throw new SetupError('Invalid environment:\nGRAPHQL_TRUSTED_ONLY: needs GRAPHQL_TRUSTED_DOCUMENTS (the manifest of the documents that may run)');
  if (e.NODE_ENV === 'production') {
    const weak = [...e.API_KEYS, ...e.API_ADMIN_KEYS].filter(isWeakKey);
    if (weak.length > 0) {
      throw new SetupError(
        `Invalid environment:\nAPI_KEYS / API_ADMIN_KEYS: with NODE_ENV=production a key must be at least ${MIN_KEY_CHARS} characters and not an example's placeholder; ` +
          `${weak.length === 1 ? 'one is not' : `${weak.length} are not`} (make one with: openssl rand -hex 24)`,
      );
    }
  }
  if (e.REDIS_URL && e.REDIS_SENTINELS)
    throw new SetupError('Invalid environment:\nREDIS_URL / REDIS_SENTINELS: set one (a Redis by its URL, or the Sentinels that know the primary)');
  if (maxPending >= e.MAX_CONNECTIONS / 2)
    throw new SetupError(
      `Invalid environment:\nWS_PENDING_MAX: must be below half of MAX_CONNECTIONS (${e.MAX_CONNECTIONS}), so that sockets without a key never crowd out clients`,
    );
  if (maxStreams >= e.MAX_CONNECTIONS)
    throw new SetupError(
      `Invalid environment:\nMAX_STREAMS: must be below MAX_CONNECTIONS (${e.MAX_CONNECTIONS}), so that other requests always find a connection`,
    );
  return {
    port: e.PORT,
    host: e.HOST,
    dbPath: e.DB_PATH,
    logLevel: e.LOG_LEVEL,
    countStatements: false,
    auth: e.AUTH,
    apiKeys: e.API_KEYS,
    apiAdminKeys: e.API_ADMIN_KEYS,
    apiKeysQuota: e.API_KEYS_QUOTA,
    apiKeysRate: e.API_KEYS_RATE,
    corsOrigins: e.CORS_ORIGINS,
    // Off by default in production: introspection and suggestions describe the schema to anyone.
    introspection: e.GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== 'production',
    trustedDocuments: { manifest: e.GRAPHQL_TRUSTED_DOCUMENTS ?? null, only: e.GRAPHQL_TRUSTED_ONLY },
    graphql: {
      maxBatch: e.GRAPHQL_BATCH_MAX,
      wsInitTimeoutMs: e.GRAPHQL_WS_INIT_TIMEOUT_MS,
      wsIdleTimeoutMs: e.GRAPHQL_WS_IDLE_TIMEOUT_MS,
      heartbeatMs: 12_000,
      liveCheckMs: e.LIVE_CHECK_MS,
    },
    mcp: { sessionIdleTimeoutMs: e.MCP_SESSION_IDLE_TIMEOUT_MS },
    maxBodyBytes: e.MAX_BODY_BYTES,
    connections: {
      maxConnections: e.MAX_CONNECTIONS,
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    },
    streams: {
      perKey: e.STREAMS_PER_KEY,
      perAddress: e.STREAMS_PER_ADDRESS,
      total: maxStreams,
      maxLifetimeMs: e.STREAM_MAX_LIFETIME_MS,
      maxBufferedBytes: e.STREAM_MAX_BUFFERED_BYTES,
    },
    pendingSockets: { perAddress: e.WS_PENDING_PER_ADDRESS, total: maxPending },
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    executionTimeoutMs: e.EXECUTION_TIMEOUT_MS,
    responseCacheBytes: Math.round(e.RESPONSE_CACHE_MB * 1024 * 1024),
    tracing:
      Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && e.OTEL_SDK_DISABLED !== 'true' && e.OTEL_TRACES_EXPORTER !== 'none',
    snapshotChunk: 250,
    warmUpDelayMs: 200,
    warmUpRounds: e.WARM_UP_ROUNDS,
    costBudget: { unitsPerRequest: e.COST_UNITS_PER_REQUEST, windowSeconds: e.COST_WINDOW_SECONDS },
    provider: e.PROVIDER,
    openMeteo: { forecast: e.OPEN_METEO_FORECAST_URL, archive: e.OPEN_METEO_ARCHIVE_URL },
    liftie: { enabled: e.LIFTIE, url: e.LIFTIE_URL },
    upstream: {
      timeoutMs: e.UPSTREAM_TIMEOUT_MS,
      retries: e.UPSTREAM_RETRIES,
      concurrency: e.UPSTREAM_CONCURRENCY,
      backoffMs: 500,
      resetTimeoutMs: e.UPSTREAM_BREAKER_RESET_MS,
      maxBytes: e.UPSTREAM_MAX_BYTES,
    },
    syncRunBudgetMs: e.SYNC_RUN_BUDGET_MS,
    syncIntervalMinutes: e.SYNC_INTERVAL_MINUTES,
    redis: redisTarget(e) ? { target: redisTarget(e)!, replicaId: e.REPLICA_ID ?? `${hostname()}-${process.pid}` } : null,
    clockStart: e.CLOCK_START ?? null,
  };
}
