import type { Config } from '../lib/config.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { clockFrom } from '../lib/clock.js';
import { API_VERSION } from '../lib/version.js';
import type { Db } from '../data/db/open.js';
import type { Repositories } from '../data/repositories/index.js';
import { createMetrics } from '../http/metrics.js';
import { Lifecycle } from './lifecycle.js';
import { openStorage } from './storage.js';
import { connectReplicas } from './replicas.js';
import { startKeys } from './keys.js';
import { startData } from './data.js';
import { startHttp } from './http-server.js';
import { warmAfterListening } from './warm-up.js';

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

/**
 * Starts the service as its parts, in order, each registering what it opened with the lifecycle,
 * which closes them in reverse at shutdown (or when a later part fails to start). Every request
 * goes through http/dispatch.ts.
 */
export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const now = options.now ?? clockFrom(config.clockStart);
  const life = new Lifecycle(logger);
  try {
    // Traces when OTEL_* name an endpoint: the SDK is loaded only then.
    if (config.tracing) {
      const tracing = (await import('../telemetry/sdk.js')).startTracing(API_VERSION);
      life.onClose('tracing', () => tracing.shutdown());
    }
    // What each part reports, read when Prometheus scrapes (prom-client itself is loaded after listening).
    const metrics = createMetrics();
    const storage = openStorage(config, logger, now, life);
    const replicas = await connectReplicas(config, logger, now, life);
    const { guard, usage } = await startKeys(config, logger, now, storage, replicas, life);
    const services = await startData(config, logger, now, storage, replicas, metrics, life);
    /** Set once the first requests would run at warm speed (warm-up.ts): readiness waits for it. */
    let warmed = false;
    const readiness = () => ({
      waiting: [...(services.weatherWindow.ready ? [] : ['the weather window of today']), ...(warmed ? [] : ['warming up'])],
      // Without Redis a replica still serves (local limits, its own data): ready, and says so.
      notes: replicas && !replicas.redis.up() ? ['redis unreachable: local limits and local data until it is back'] : [],
    });
    const http = await startHttp({ config, logger, now, services, guard, usage, metrics, readiness }, life);
    const warming = warmAfterListening({ ...http, services, loadMetrics: () => metrics.load() }, config.warmUpDelayMs, config.warmUpRounds)
      .catch((err) => logger.error({ err }, 'warming up failed'))
      .finally(() => (warmed = true));
    return {
      url: http.url,
      port: http.port,
      db: storage.db,
      repos: storage.repos,
      logger,
      statementCount: storage.statementCount,
      ready: () => Promise.all([services.weatherWindow.ensureCurrent(), warming]).then(() => {}),
      openConnections: http.openConnections,
      close: (graceMs = 0) => life.close({ graceMs }),
    };
  } catch (err) {
    // A part that could not start (a port in use, a database another process holds): what the
    // parts before it opened is closed, and the cause goes to the caller.
    await life.close({ graceMs: 0 });
    throw err;
  }
}
