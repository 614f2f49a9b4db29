import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Config } from '../lib/config.js';
import type { Problem } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { API_VERSION } from '../lib/version.js';
import { printSchema } from 'graphql';
import { schema } from '../graphql/schema.js';
import { contextFactory, type Services } from '../graphql/context.js';
import { loadManifest, PersistedDocuments } from '../operation/persisted-documents.js';
import { createFreshnessOf } from '../operation/freshness.js';
import { createPipeline } from '../operation/pipeline.js';
import { createRestRouter } from '../transports/rest/router.js';
import { routes } from '../transports/rest/routes.js';
import { openApiDocument } from '../transports/rest/openapi.js';
import { createGraphQLHttp } from '../transports/graphql/http.js';
import type { createGraphQLWs } from '../transports/graphql/ws.js';
import type { createMcp } from '../transports/mcp/endpoint.js';
import { presentedKey } from '../auth/presented-key.js';
import { monthOf } from '../auth/guard.js';
import type { KeyCheck } from '../auth/guard-answers.js';
import type { UsageCounter } from '../auth/usage-counter.js';
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
import type { Metrics } from '../http/metrics.js';
import type { Lifecycle } from './lifecycle.js';
import { Lazy } from '../lib/lazy.js';

const lazyText = (build: () => string) => {
  const text = new Lazy(build);
  return () => text.get();
};

export interface HttpDeps {
  config: Config;
  logger: Logger;
  now: () => Date;
  services: Services;
  guard: KeyCheck & {
    /** Why a key's open streams must end now (revoked, out of quota), or null. */
    standing(keyId: number): Problem | null | Promise<Problem | null>;
  };
  usage: UsageCounter;
  metrics: Metrics;
  /** What readiness (/readyz) waits for, and notes on how the server is serving. */
  readiness: () => { waiting: string[]; notes: string[] };
}

/**
 * The HTTP server: the one pipeline every GraphQL operation runs through (every transport, the
 * REST routes, the warm-up), the transports, and the dispatcher every request enters by; GraphQL
 * over WebSocket is loaded with the first upgrade. Listening when this resolves.
 */
export async function startHttp({ config, logger, now, services, guard, usage, metrics, readiness }: HttpDeps, life: Lifecycle) {
  const { dataVersion } = services;
  const newContext = contextFactory(services);
  const deadlines = new Deadlines(config.executionTimeoutMs);
  life.onClose('http', () => deadlines.close());
  const streams = new StreamLimiter(config.streams);
  // A key revoked or out of quota loses its open streams too, not only its next request.
  const streamKeys = config.auth ? endStreamsOfRefusedKeys(streams, (keyId) => guard.standing(keyId), logger) : null;
  if (streamKeys) life.onStop('http', () => streamKeys.stop());
  const cache = new ResponseCache(config.responseCacheBytes);
  metrics.observe({ cache: () => ({ ...cache.stats, bytes: cache.bytes }), usage: () => usage.countsFor(monthOf(now())) });
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
  const rest = createRestRouter({
    routes,
    pipeline,
    cache,
    makeContext: (ex) => newContext(ex),
    versionOf: (freshness) => dataVersion.of(freshness),
    cacheControlOf: (freshness) => dataVersion.cacheControl(freshness),
  });
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
        maxMessageBytes: config.maxBodyBytes,
        maxBufferedBytes: config.streams.maxBufferedBytes,
        initTimeoutMs: config.graphql.wsInitTimeoutMs,
        idleTimeoutMs: config.graphql.wsIdleTimeoutMs,
        heartbeatMs: config.graphql.heartbeatMs,
        now,
        newId: randomUUID,
      }),
    ));
  // MCP for agents, loaded with the first request to /mcp.
  let mcp: Promise<ReturnType<typeof createMcp>> | null = null;
  const loadMcp = () =>
    (mcp ??= import('../transports/mcp/endpoint.js').then((m) =>
      m.createMcp({
        pipeline,
        schema,
        newContext,
        guard,
        streams,
        logger,
        corsOrigins: config.corsOrigins,
        maxBodyBytes: config.maxBodyBytes,
        maxBufferedBytes: config.streams.maxBufferedBytes,
        idleTimeoutMs: config.mcp.sessionIdleTimeoutMs,
        keepAliveMs: config.graphql.heartbeatMs,
        deadlineMs: config.executionTimeoutMs,
        // Made once, on the first read: the schema and the route table do not change while the server runs.
        documents: {
          'gateway://schema.graphql': lazyText(() => printSchema(schema)),
          'gateway://openapi.json': lazyText(() => JSON.stringify(openApiDocument(routes, API_VERSION, schema))),
        },
        version: API_VERSION,
        now,
        newId: randomUUID,
      }),
    ));
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
        const { waiting, notes } = readiness();
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
      mcp: (ex) => loadMcp().then((m) => m.handle(ex)),
      webSocket: (req, socket, head, admitted) => loadWs().then((w) => w.upgrade(req, socket, head, admitted)),
    },
  });

  // Time-outs are checked every second (node's default is 30 s, which let a slowloris live 39 s).
  const server: Server = createServer({ connectionsCheckingInterval: 1000 }, dispatch);
  const connections = limitConnections(server, config.connections, logger, streams);
  server.on('upgrade', (req, socket, head) => {
    // node:http lets go of an upgraded socket: a client that resets it before the WebSocket
    // library takes it (while its key is checked, or as it is refused) must not end the process.
    socket.on('error', (err) => logger.debug({ err }, 'a socket being upgraded failed'));
    // The same door as every request (http/dispatch.ts), then the WebSocket adapter.
    dispatch.upgrade(req, socket, head).catch((err: unknown) => {
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
  // At shutdown: no new connections, idle ones closed, WebSockets told the server is going (1001)
  // at once (their operations are long-lived); then requests in flight get the grace period, and
  // what is still open after it is cut.
  let closed: Promise<void> | null = null;
  life.onStop('http', async () => {
    closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (ws) (await ws).close();
    if (mcp) (await mcp).close();
  });
  life.onClose('http', async ({ graceMs }) => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    server.closeAllConnections();
    await closed;
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  return { url: `http://${host}:${port}`, port, pipeline, newContext, openConnections: () => connections.open() };
}
