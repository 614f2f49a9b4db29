import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Config } from '../lib/config.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { ensureDatabase } from '../data/db/build.js';
import { DatabaseInUseError, hold, holdersOf } from '../data/db/holders.js';
import { openDatabase, type Db } from '../data/db/open.js';
import { createRepositories, type Repositories } from '../data/repositories/index.js';
import { ZipSpatialIndex } from '../domain/zip-spatial-index.js';
import { PointIndex } from '../domain/point-index.js';
import { windowFor } from '../domain/weather/window.js';
import { Lazy } from '../lib/lazy.js';
import { WeatherWindow } from '../weather/window.js';
import { simulatedProvider } from '../providers/simulated.js';
import { createProviders } from '../providers/index.js';
import { HistoryService } from '../history/service.js';
import { SyncRunner } from '../sync/runner.js';
import { SyncRepository } from '../data/repositories/sync.js';
import { ResortRepository } from '../data/repositories/resorts.js';
import { loadLiftieIds } from '../sync/liftie-ids.js';
import { schema } from '../graphql/schema.js';
import { contextFactory, type Services } from '../graphql/context.js';
import { SnapshotStore } from '../data/snapshots/store.js';
import { DataVersion } from '../data/data-version.js';
import { warmUp } from './warm-up.js';
import { createRestRouter } from '../transports/rest/router.js';
import { routes } from '../transports/rest/routes.js';
import { AuthGuard } from '../auth/guard.js';
import { CostBudget } from '../auth/cost-budget.js';
import { UsageCounter } from '../auth/usage-counter.js';
import { KeyRepository } from '../data/repositories/keys.js';
import { registerEnvKeys } from '../auth/env-keys.js';
import { loadManifest, PersistedDocuments } from '../operation/persisted-documents.js';
import { createFreshnessOf } from '../operation/freshness.js';
import { createPipeline } from '../operation/pipeline.js';
import { createGraphQLHttp } from '../transports/graphql/http.js';
import type { createGraphQLWs } from '../transports/graphql/ws.js';
import { presentedKey } from '../auth/presented-key.js';
import { createDispatcher } from '../http/dispatch.js';
import { type ParseError, unparsedProblem } from '../http/unparsed.js';
import { Deadlines } from '../http/deadline.js';
import { ResponseCache } from '../http/response-cache.js';
import { rawProblemResponse } from '../http/problem.js';
import { answerOn, limitConnections } from '../http/connections.js';
import { StreamLimiter } from '../http/streams.js';
import { PendingSockets } from '../http/pending-sockets.js';
import { endStreamsOfRefusedKeys } from '../http/stream-keys.js';
import { createPages } from '../http/pages.js';
import { createMetrics, type Metrics } from '../http/metrics.js';
import { openApiDocument } from '../transports/rest/openapi.js';
import { ensureFirstKey, showOnTerminalAndInFile } from '../auth/first-key.js';
import { monthOf } from '../auth/guard.js';
import { clockFrom } from '../lib/clock.js';
import { WindowStore } from '../cluster/window-store.js';
import { API_VERSION } from '../lib/version.js';
import { nextTurn } from '../lib/turn.js';
import { ConditionsFeed } from '../live/conditions-feed.js';
import { RequestLoaders } from '../data/loaders.js';

export interface AppOptions {
  config: Config;
  logger?: Logger;
  now?: () => Date;
}

export interface RunningApp {
  url: string;
  port: number;
  db: Db;
  repos: Repositories;
  logger: Logger;
  /** SQL statements executed so far (only counted when config.countStatements is on). */
  statementCount: () => number;
  /** Resolves once today's weather window is stored (the server answers before that too). */
  ready: () => Promise<void>;
  /** Open client connections now. */
  openConnections: () => number;
  /**
   * Stops accepting, lets requests in flight finish for up to `graceMs`, then closes every
   * connection (a request still running is cut), stops background work and closes the database.
   */
  close: (graceMs?: number) => Promise<void>;
}

/** Composes the service from its parts and starts listening; every request goes through http/dispatch.ts. */
export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const now = options.now ?? clockFrom(config.clockStart);

  // Traces when OTEL_* name an endpoint: the SDK is loaded only then.
  const tracing = config.tracing ? (await import('../telemetry/sdk.js')).startTracing(API_VERSION) : null;

  // A server never starts on a file a build is about to replace.
  const building = holdersOf(config.dbPath).filter((h) => h.role === 'build');
  if (building.length > 0) throw new DatabaseInUseError(config.dbPath, building);
  const started = performance.now();
  if (ensureDatabase(config.dbPath)) {
    logger.info({ dbPath: config.dbPath, ms: Math.round(performance.now() - started) }, 'database built');
  }
  // While it serves, no command replaces the file under it (db/holders.ts).
  const releaseDb = hold(config.dbPath, 'server', now);
  let statements = 0;
  const db = openDatabase(config.dbPath, { serving: true, ...(config.countStatements ? { onStatement: () => void statements++ } : {}) });
  const repos = createRepositories(db);
  // Replicas share keys, quotas and sync through Redis (src/cluster); one process needs none of
  // it, and does not even load it.
  const replicas = config.redis ? await import('../cluster/index.js') : null;
  const redis = replicas ? replicas.connectRedis(config.redis!.url, logger) : null;
  const redisKeys = redis ? new replicas!.RedisKeyStore(redis) : null;
  // API_KEYS are this replica's own: named under its REPLICA_ID while it lives (env-key-lease.ts).
  const envKeys = redis ? new replicas!.EnvKeyLease(redisKeys!, redis, config.redis!.replicaId, now, logger) : null;
  if (redis && !(await replicas!.waitUntilUp(redis, 3000))) logger.warn('redis is unreachable at start; serving with local data until it is back');
  // The keys command reads where this database's keys live: a replica's are in Redis, not here.
  repos.keys.setKeyStore(redis ? 'redis' : 'sqlite');
  const keyStore = redisKeys && redis!.up() ? redisKeys : repos.keys;
  await registerEnvKeys(keyStore === redisKeys ? envKeys! : repos.keys, config, now, logger);
  await ensureFirstKey(keyStore, config, logger, now, showOnTerminalAndInFile(config.dbPath));
  // Keys from the environment are there again after Redis comes back (even one without persistence).
  redis?.cmd.on('ready', () =>
    registerEnvKeys(envKeys!, config, now, logger).catch((err) =>
      logger.warn(
        { err },
        'the keys of API_KEYS and API_ADMIN_KEYS could not be registered again in Redis after it came back: those it lost are refused (401) until Redis reconnects or this replica restarts',
      ),
    ),
  );
  if (!config.auth) logger.warn('AUTH=off: API keys are NOT checked. Never run like this outside local development.');

  const dataVersion = new DataVersion(repos, now, () => sync.nextScheduledRun);
  /** When this replica last published or applied a run's window (for /metrics). */
  let windowAt: Date | null = null;
  // Reports are made from the same snapshots requests use; `services` is complete before anyone subscribes.
  const live = new ConditionsFeed({
    snapshots: (ids) => new RequestLoaders(services).snapshotByResort.loadMany(ids),
    version: () => dataVersion.current().version,
    checkEveryMs: config.graphql.liveCheckMs,
    logger,
  });
  let metrics: Metrics | null = null;
  const providers = createProviders(config, logger, (provider, outcome) => metrics?.upstreamCall(provider, outcome));
  // The offline generator fills the window itself (in the background if it must); real providers by sync runs.
  const weatherWindow = new WeatherWindow(repos.resorts, repos.weather, providers.conditions, now, logger, providers.conditions === simulatedProvider);
  // A failed fill is logged by the window itself; requests then fill what they need.
  void weatherWindow.ensureCurrent().catch(() => {});
  // Background writers (usage counts, sync runs) get their own connection, so their statements
  // never interleave with a request's (and never count in a request's statement budget).
  const backgroundDb = openDatabase(config.dbPath);
  const sync = new SyncRunner({
    runs: new SyncRepository(backgroundDb),
    resorts: new ResortRepository(backgroundDb),
    conditions: providers.conditions,
    lifts: providers.lifts,
    liftieIds: loadLiftieIds(),
    now,
    logger,
    concurrency: config.upstream.concurrency,
    runBudgetMs: config.syncRunBudgetMs,
    onPublished: (runId, { from, to }) => {
      windowAt = now();
      dataVersion.published();
      void live.changed();
      void cluster?.publishWindow(runId, windows.read(from, to));
    },
    nextRunId: () => cluster?.nextRunId() ?? 1,
    mayRunScheduled: () => cluster?.isLeader ?? true,
    onFinished: (status) => metrics?.syncRun(status),
  });
  sync.recover();
  sync.schedule(config.syncIntervalMinutes);
  // Real providers fill the window only through runs: start one when today's data is missing
  // (with replicas, the sync leader does, when it takes the lease).
  const windowMissing = () => {
    const { from, to } = windowFor(weatherWindow.today());
    return providers.conditions !== simulatedProvider && config.syncIntervalMinutes > 0 && repos.weather.resortsCovering(from, to) < repos.resorts.all().length;
  };
  const windows = new WindowStore(backgroundDb);
  const cluster = redis
    ? new replicas!.ClusterSync({
        link: redis,
        runner: sync,
        windows,
        replicaId: config.redis!.replicaId,
        logger,
        now,
        onApplied: () => {
          windowAt = now();
          dataVersion.published();
          void live.changed();
        },
        windowMissing,
      })
    : null;
  if (cluster) await cluster.join();
  else if (windowMissing()) sync.start('SCHEDULED');

  const services: Services = {
    live,
    repos,
    zipIndex: new Lazy(() => new ZipSpatialIndex(repos.zips.table())),
    resortIndex: new Lazy(() => PointIndex.of(repos.resorts.all(), (r) => r.id)),
    weatherWindow,
    snapshots: new SnapshotStore(),
    dataVersion,
    snapshotChunk: config.snapshotChunk,
    history: new HistoryService(providers.history),
    sync: cluster ?? sync,
    // With replicas, one budget per key for the whole cluster (counted in Redis).
    costBudget: new CostBudget(
      config.costBudget.unitsPerRequest,
      config.costBudget.windowSeconds,
      () => now().getTime(),
      redis ? replicas!.clusterBudgetLimiter(redis) : undefined,
    ),
    logger,
    now,
  };
  const newContext = contextFactory(services);

  // Key lookups and usage writes share the background connection: its own usage writes do not
  // move its data_version, so the key cache is dropped only when someone else writes (a revocation).
  const keys = new KeyRepository(backgroundDb);
  const usage = new UsageCounter(keys);
  const guard = redisKeys ? new replicas!.ClusterGuard(redisKeys, now, config.auth, logger) : new AuthGuard(keys, usage, now, config.auth);
  const deadlines = new Deadlines(config.executionTimeoutMs);
  /** Set once the first requests would run at warm speed (warm-up.ts): readiness waits for it. */
  let warmed = false;
  const streams = new StreamLimiter(config.streams);
  // A key revoked or out of quota loses its open streams too, not only its next request.
  const streamKeys = config.auth ? endStreamsOfRefusedKeys(streams, (keyId) => guard.standing(keyId), logger) : null;
  const cache = new ResponseCache(config.responseCacheBytes);
  // Every GraphQL operation, whatever brought it (every transport, the REST routes, the warm-up).
  const pipeline = createPipeline({
    schema,
    introspection: config.introspection,
    documents: new PersistedDocuments({ trusted: config.trustedDocuments.manifest ? loadManifest(config.trustedDocuments.manifest) : undefined }),
    trustedOnly: config.trustedDocuments.only,
    cache,
    freshnessOf: createFreshnessOf(schema),
    versionOf: (freshness) => dataVersion.of(freshness),
    cacheControlOf: (freshness) => dataVersion.cacheControl(freshness),
  });
  metrics = createMetrics({
    cache: () => ({ ...cache.stats, bytes: cache.bytes }),
    breakers: () => providers.upstreams.map((u) => ({ provider: u.name, open: u.breaker.opened })),
    usage: () => usage.countsFor(monthOf(now())),
    live: () => live.stats,
    windowAt: () => windowAt,
  });
  const rest = createRestRouter({
    routes,
    pipeline,
    cache,
    makeContext: (ex) => newContext(ex),
    versionOf: (freshness) => dataVersion.of(freshness),
    cacheControlOf: (freshness) => dataVersion.cacheControl(freshness),
  });
  const dispatch = createDispatcher({
    guard,
    deadlines,
    metrics,
    corsOrigins: config.corsOrigins,
    logger,
    now: () => now().getTime(),
    handlers: {
      pages: createPages(
        () => openApiDocument(routes, API_VERSION, schema),
        config,
        () => now().getTime(),
      ),
      ready: () => {
        const waiting = [...(weatherWindow.ready ? [] : ['the weather window of today']), ...(warmed ? [] : ['warming up'])];
        // Without Redis a replica still serves (local limits, its own data): ready, and says so.
        const notes = redis && !redis.up() ? ['redis unreachable: local limits and local data until it is back'] : [];
        return { ready: waiting.length === 0, waiting, notes };
      },
      graphql: createGraphQLHttp({
        pipeline,
        makeContext: (ex) => newContext(ex),
        cache,
        streams,
        maxBodyBytes: config.maxBodyBytes,
        maxBatch: config.graphql.maxBatch,
        heartbeatMs: config.graphql.heartbeatMs,
        recheck: async (ex) => {
          const verdict = await guard.check(presentedKey(ex.req.headers));
          return verdict.ok ? { refused: null, headers: verdict.headers } : { refused: verdict.problem };
        },
      }),
      rest: rest.handle,
    },
  });

  // Time-outs are checked every second (node's default is 30 s, which let a slowloris live 39 s).
  const server: Server = createServer({ connectionsCheckingInterval: 1000 }, dispatch);
  const connections = limitConnections(server, config.connections, logger, streams);
  // GraphQL over WebSocket, loaded with the first upgrade request.
  let ws: Promise<ReturnType<typeof createGraphQLWs>> | null = null;
  const loadWs = () =>
    (ws ??= import('../transports/graphql/ws.js').then((m) =>
      m.createGraphQLWs({
        pipeline,
        schema,
        newContext,
        guard,
        streams,
        pending: new PendingSockets(config.pendingSockets),
        deadlines,
        logger,
        corsOrigins: config.corsOrigins,
        maxMessageBytes: config.maxBodyBytes,
        maxBufferedBytes: config.streams.maxBufferedBytes,
        initTimeoutMs: config.graphql.wsInitTimeoutMs,
        idleTimeoutMs: config.graphql.wsIdleTimeoutMs,
        heartbeatMs: config.graphql.heartbeatMs,
        now,
        newId: randomUUID,
      }),
    ));
  server.on('upgrade', (req, socket, head) => {
    // node:http lets go of an upgraded socket: a client that resets it before the WebSocket
    // library takes it (while its key is checked, or as it is refused) must not end the process.
    socket.on('error', (err) => logger.debug({ err }, 'a socket being upgraded failed'));
    loadWs()
      .then((w) => w.upgrade(req, socket, head))
      .catch((err: unknown) => {
        logger.error({ err }, 'a WebSocket upgrade failed');
        socket.destroy();
      });
  });
  // Requests node:http cannot parse (oversized headers or URL, broken syntax) never reach a
  // handler: answer them as problem+json too, instead of node's bare status line.
  server.on('clientError', (err: NodeJS.ErrnoException & ParseError, socket) => {
    // A request whose answer has begun can only be cut; one still being read (a body that
    // trickles past REQUEST_TIMEOUT_MS) is told why, as node itself would.
    if (!socket.writable || answerOn(socket)?.headersSent) return socket.destroy();
    // Then close for good: a client still trickling bytes must not keep a half-closed socket open.
    socket.end(rawProblemResponse(unparsedProblem(err), randomUUID()), () => socket.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // Listening first, then (a moment later, so the first requests are not kept waiting) what only
  // some requests need, a piece per turn of the event loop.
  const warming = (async () => {
    await new Promise((resolve) => setTimeout(resolve, config.warmUpDelayMs).unref());
    await pipeline.loadCompiler();
    await metrics!.load();
    // No rounds asked for, nothing built ahead either: tables, indexes and operations are built by
    // the first request that needs them (a server that only answers resorts never reads the ZIPs).
    if (config.warmUpRounds === 0) return weatherWindow.ensureCurrent();
    repos.zips.warm();
    await nextTurn();
    services.zipIndex.warm();
    await nextTurn();
    services.resortIndex.warm();
    await weatherWindow.ensureCurrent();
    const zips = repos.zips.table();
    const resorts = repos.resorts.all();
    const samplesOf = (round: number) => {
      const row = (round * 997) % zips.size;
      const other = (row + 4999) % zips.size;
      return {
        zip: zips.zipAt(row),
        state: zips.stateCodeAt(row),
        city: zips.cityAt(row),
        id: resorts[round % resorts.length]!.id,
        with: resorts[(round + 1) % resorts.length]!.id,
        from: zips.zipAt(row),
        to: zips.zipAt(other),
        codes: `${zips.zipAt(row)},${zips.zipAt(other)}`,
        lat: resorts[round % resorts.length]!.lat,
        lng: resorts[round % resorts.length]!.lng,
      };
    };
    if (zips.size > 0 && resorts.length > 1) await warmUp(routes, pipeline, newContext, samplesOf, config.warmUpRounds);
  })()
    .catch((err) => logger.error({ err }, 'warming up failed'))
    .finally(() => (warmed = true));
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;

  return {
    url: `http://${host}:${port}`,
    port,
    db,
    repos,
    logger,
    statementCount: () => statements,
    ready: () => Promise.all([weatherWindow.ensureCurrent(), warming]).then(() => {}),
    openConnections: () => connections.open(),
    close: async (graceMs = 0) => {
      weatherWindow.stop();
      // Stops listening now, before the first await (server.ts logs "shutting down" after this).
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // WebSockets are told the server is going (1001) at once: their operations are long-lived.
      if (ws) (await ws).close();
      live.close();
      streamKeys?.stop();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      server.closeAllConnections();
      await closed;
      deadlines.close();
      await cluster?.stop();
      await sync.stop();
      await envKeys?.stop();
      await redis?.close();
      usage.close();
      backgroundDb.close();
      db.close();
      releaseDb();
      await tracing?.shutdown();
    },
  };
}
