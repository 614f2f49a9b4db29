import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { ensureDatabase } from './db/build.js';
import { openDatabase, type Db } from './db/open.js';
import { createRepositories, type Repositories } from './repositories/index.js';
import { ZipSpatialIndex } from './domain/zip-spatial-index.js';
import { PointIndex } from './domain/point-index.js';
import { WeatherWindow } from './weather/window.js';
import { simulatedProvider } from './providers/simulated.js';
import { createProviders } from './providers/index.js';
import { HistoryService } from './history/service.js';
import { SyncRunner } from './sync/runner.js';
import { SyncRepository } from './repositories/sync.js';
import { ResortRepository } from './repositories/resorts.js';
import { loadLiftieIds } from './sync/liftie-ids.js';
import { windowFor } from './weather/window.js';
import { schema } from './graphql/schema.js';
import { createContext, type Services } from './graphql/context.js';
import { SnapshotCache } from './graphql/snapshot-cache.js';
import { createRestRouter } from './rest/router.js';
import { routes } from './rest/routes.js';
import { sendProblem, type Problem } from './rest/problem.js';
import { AuthGuard } from './auth/guard.js';
import { UsageCounter } from './auth/usage-counter.js';
import { KeyRepository } from './repositories/keys.js';
import { registerEnvKeys } from './auth/env-keys.js';
import { applyCors, setSecurityHeaders } from './http/security.js';
import { createGraphQLHandler, isGraphiQLPage } from './http/graphql-handler.js';
import { BodyTooLargeError } from './http/body.js';
import { DeadlineError, withDeadline } from './http/deadline.js';

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
  close: () => Promise<void>;
}

const REQUEST_ID = /^[\w.:-]{1,64}$/;
const INTERNAL: Problem = { status: 500, code: 'INTERNAL_SERVER_ERROR', detail: 'Unexpected error; it has been logged with this request id.' };

export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const now = options.now ?? (() => new Date());

  const started = performance.now();
  if (ensureDatabase(config.dbPath)) {
    logger.info({ dbPath: config.dbPath, ms: Math.round(performance.now() - started) }, 'database built');
  }
  let statements = 0;
  const db = openDatabase(config.dbPath, config.countStatements ? { onStatement: () => void statements++ } : {});
  const repos = createRepositories(db);
  registerEnvKeys(repos.keys, config, now);
  if (!config.auth) logger.warn('AUTH=off: API keys are NOT checked. Never run like this outside local development.');

  const providers = createProviders(config, logger);
  // The offline generator fills the window itself, instantly; real providers fill it by sync runs.
  const weatherWindow = new WeatherWindow(repos.resorts, repos.weather, providers.conditions, now, logger, providers.conditions === simulatedProvider);
  await weatherWindow.ensureCurrent();
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
    onPublished: () => {
      repos.weather.changed();
      repos.inventory.version++;
    },
  });
  sync.recover();
  sync.schedule(config.syncIntervalMinutes);
  // Real providers fill the window only through runs: start one when today's data is missing.
  if (providers.conditions !== simulatedProvider && config.syncIntervalMinutes > 0) {
    const { from, to } = windowFor(weatherWindow.today());
    if (repos.weather.resortsCovering(from, to) < repos.resorts.all().length) sync.start('SCHEDULED');
  }

  const services: Services = {
    repos,
    zipIndex: new ZipSpatialIndex(repos.zips.allPoints()),
    resortIndex: new PointIndex(repos.resorts.all(), (r) => r.id),
    weatherWindow,
    snapshots: new SnapshotCache(),
    history: new HistoryService(providers.history),
    sync,
    logger,
    now,
  };

  const usage = new UsageCounter(new KeyRepository(backgroundDb));
  const guard = new AuthGuard(repos.keys, usage, now, config.auth);
  const restRouter = createRestRouter(schema, routes);
  const graphql = createGraphQLHandler(schema, services, config);

  async function dispatch(req: IncomingMessage, res: ServerResponse, requestId: string, log: Logger): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    let path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    // The hosted address carries /v1 before the documented paths; serve both.
    if (path === '/v1' || path.startsWith('/v1/')) path = path.slice(3) || '/';
    const isGraphQL = path === '/graphql';
    const graphiqlPage = isGraphQL && isGraphiQLPage(req);
    setSecurityHeaders(res, graphiqlPage ? 'graphiql' : 'api');
    if (applyCors(req, res, config.corsOrigins)) return;

    // The GraphiQL page itself loads without a key; every request it sends needs one.
    if (!graphiqlPage) {
      const verdict = guard.check(req.headers['x-api-key']);
      if (!verdict.ok) return sendProblem(res, verdict.problem, rawUrl, requestId);
      for (const [k, v] of Object.entries(verdict.headers)) res.setHeader(k, v);
      if (verdict.key) log = log.child({ keyId: verdict.key.id });
    }

    if (isGraphQL) return graphql(req, res, path + (q === -1 ? '' : rawUrl.slice(q)), { requestId, log });
    const context = createContext(services, requestId, log);
    const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
    const handled = await withDeadline(restRouter({ req, res, path, query, context }), config.executionTimeoutMs);
    if (!handled) sendProblem(res, { status: 404, code: 'NOT_FOUND', detail: `No such path: ${path}` }, rawUrl, requestId);
  }

  const server: Server = createServer((req, res) => {
    const header = req.headers['x-request-id'];
    const requestId = typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    const log = logger.child({ reqId: requestId });
    const t0 = performance.now();
    res.setHeader('x-request-id', requestId);
    res.on('finish', () => {
      log.info({ method: req.method, url: req.url, status: res.statusCode, ms: +(performance.now() - t0).toFixed(2) }, 'request');
    });
    dispatch(req, res, requestId, log).catch((err) => {
      const problem: Problem =
        err instanceof BodyTooLargeError
          ? { status: 413, code: 'PAYLOAD_TOO_LARGE', detail: `The request body must be at most ${err.limit} bytes.`, errors: [{ name: 'body', bound: `<= ${err.limit} bytes`, message: `body must be at most ${err.limit} bytes` }] }
          : err instanceof DeadlineError
            ? { status: 503, code: 'TIMEOUT', detail: `The request took longer than the ${err.ms} ms execution limit.`, headers: { 'retry-after': '1' } }
            : INTERNAL;
      if (problem === INTERNAL) log.error({ err }, 'request failed');
      else log.warn({ code: problem.code }, problem.detail);
      if (!res.headersSent) sendProblem(res, problem, req.url ?? '', requestId);
      else res.end();
    });
  });
  // Slow or stuck clients must not hold sockets forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  // Requests node:http cannot parse (oversized headers or URL, broken syntax) never reach a
  // handler: answer them as problem+json too, instead of node's bare status line.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (socket as unknown as { _httpMessage?: unknown })._httpMessage) return socket.destroy();
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({
      type: 'about:blank',
      title: STATUS_CODES[status],
      status,
      detail: tooLarge ? 'The request line or headers are too large.' : 'The request could not be parsed as HTTP.',
      code: tooLarge ? 'HEADERS_TOO_LARGE' : 'BAD_REQUEST',
    });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/problem+json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;

  return {
    url: `http://${host}:${port}`,
    port,
    db,
    repos,
    logger,
    statementCount: () => statements,
    close: async () => {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await sync.stop();
      usage.close();
      backgroundDb.close();
      db.close();
    },
  };
}
