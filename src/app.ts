import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createYoga } from 'graphql-yoga';
import type { Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { ensureDatabase } from './db/build.js';
import { openDatabase, type Db } from './db/open.js';
import { createRepositories } from './repositories/index.js';
import { ZipSpatialIndex } from './domain/zip-spatial-index.js';
import { PointIndex } from './domain/point-index.js';
import { WeatherWindow } from './weather/window.js';
import { simulatedProvider } from './providers/simulated.js';
import type { ConditionsProvider } from './providers/provider.js';
import { schema } from './graphql/schema.js';
import { createContext, type Services } from './graphql/context.js';
import { SnapshotCache } from './graphql/snapshot-cache.js';
import { createRestRouter } from './rest/router.js';
import { routes } from './rest/routes.js';
import { sendProblem } from './rest/problem.js';

export interface AppOptions {
  config: Config;
  logger?: Logger;
  now?: () => Date;
  provider?: ConditionsProvider;
}

export interface RunningApp {
  url: string;
  port: number;
  db: Db;
  logger: Logger;
  /** SQL statements executed so far (only counted when config.countStatements is on). */
  statementCount: () => number;
  close: () => Promise<void>;
}

type NodeServerContext = { req: IncomingMessage & { requestId?: string; log?: Logger }; res: ServerResponse };

const REQUEST_ID = /^[\w.:-]{1,64}$/;

export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);

  const started = performance.now();
  if (ensureDatabase(config.dbPath)) {
    logger.info({ dbPath: config.dbPath, ms: Math.round(performance.now() - started) }, 'database built');
  }
  let statements = 0;
  const db = openDatabase(config.dbPath, config.countStatements ? { onStatement: () => void statements++ } : {});
  const repos = createRepositories(db);
  const zipIndex = new ZipSpatialIndex(repos.zips.allPoints());
  const resortIndex = new PointIndex(repos.resorts.all(), (r) => r.id);
  const now = options.now ?? (() => new Date());
  const weatherWindow = new WeatherWindow(repos.resorts, repos.weather, options.provider ?? simulatedProvider, now, logger);
  await weatherWindow.ensureCurrent();
  const services: Services = { repos, zipIndex, resortIndex, weatherWindow, snapshots: new SnapshotCache(), logger, now };

  const restRouter = createRestRouter(schema, routes);
  const yoga = createYoga<NodeServerContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: logger,
    context: ({ req }) => createContext(services, req.requestId ?? randomUUID(), req.log),
  });

  const server: Server = createServer((req, res) => {
    const requestId = pickRequestId(req.headers['x-request-id']);
    const log = logger.child({ reqId: requestId });
    const t0 = performance.now();
    res.setHeader('x-request-id', requestId);
    res.on('finish', () => {
      log.info({ method: req.method, url: req.url, status: res.statusCode, ms: +(performance.now() - t0).toFixed(2) }, 'request');
    });
    dispatch(req, res, requestId, log).catch((err) => {
      log.error({ err }, 'request failed');
      if (!res.headersSent) {
        sendProblem(res, { status: 500, code: 'INTERNAL_SERVER_ERROR', detail: 'Unexpected error; it has been logged with this request id.' }, req.url ?? '', requestId);
      } else res.end();
    });
  });

  async function dispatch(req: IncomingMessage, res: ServerResponse, requestId: string, log: Logger): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    let path = q === -1 ? rawUrl : rawUrl.slice(0, q);
    // The hosted address carries /v1 before the documented paths; serve both.
    if (path === '/v1' || path.startsWith('/v1/')) path = path.slice(3) || '/';
    if (path === '/graphql') {
      req.url = path + (q === -1 ? '' : rawUrl.slice(q));
      Object.assign(req, { requestId, log });
      await yoga(req, res);
      return;
    }
    const context = createContext(services, requestId, log);
    const query = new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1));
    if (await restRouter({ req, res, path, query, context })) return;
    sendProblem(res, { status: 404, code: 'NOT_FOUND', detail: `No such path: ${path}` }, rawUrl, requestId);
  }

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
    logger,
    statementCount: () => statements,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      db.close();
    },
  };
}

function pickRequestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}
