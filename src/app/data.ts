import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { Lazy } from '../lib/lazy.js';
import { ZipSpatialIndex } from '../domain/zip-spatial-index.js';
import { PointIndex } from '../domain/point-index.js';
import { windowFor } from '../domain/weather/window.js';
import { WeatherWindow } from '../weather/window.js';
import { simulatedProvider } from '../providers/simulated.js';
import { createProviders } from '../providers/index.js';
import { HistoryService } from '../history/service.js';
import { SyncRunner } from '../sync/runner.js';
import { loadLiftieIds } from '../sync/liftie-ids.js';
import { SyncRepository } from '../data/repositories/sync.js';
import { ResortRepository } from '../data/repositories/resorts.js';
import { RequestLoaders, type LoaderServices } from '../data/loaders.js';
import { SnapshotStore } from '../data/snapshots/store.js';
import { DataVersion } from '../data/data-version.js';
import { WindowStore } from '../cluster/window-store.js';
import { CostBudget } from '../auth/cost-budget.js';
import { ConditionsFeed } from '../live/conditions-feed.js';
import type { Services } from '../graphql/context.js';
import type { Metrics } from '../http/metrics.js';
import type { Lifecycle } from './lifecycle.js';
import type { Replicas } from './replicas.js';
import type { Storage } from './storage.js';

/**
 * What the resolvers work with, and what keeps it current: the providers, today's weather window,
 * sync runs (shared with the other replicas through Redis), the data's version, and the live
 * conditions feed told of each change.
 */
export async function startData(
  config: Config,
  logger: Logger,
  now: () => Date,
  storage: Storage,
  replicas: Replicas | null,
  metrics: Metrics,
  life: Lifecycle,
): Promise<Services> {
  const { repos, backgroundDb } = storage;
  const providers = createProviders(config, logger, (provider, outcome) => metrics.upstreamCall(provider, outcome));
  metrics.observe({ breakers: () => providers.upstreams.map((u) => ({ provider: u.name, open: u.breaker.opened })) });
  // The offline generator fills the window itself (in the background if it must); real providers by sync runs.
  const weatherWindow = new WeatherWindow(repos.resorts, repos.weather, providers.conditions, now, logger, providers.conditions === simulatedProvider);
  life.onStop('weather window', () => weatherWindow.stop());
  // A failed fill is logged by the window itself; requests then fill what they need.
  void weatherWindow.ensureCurrent().catch(() => {});

  // Sync runs write through the background connection, never interleaved with a request's statements.
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
    onFinished: (status) => metrics.syncRun(status),
  });
  life.onClose('sync', () => sync.stop());
  const dataVersion = new DataVersion(repos, now, () => sync.nextScheduledRun);
  const loaderServices: LoaderServices = { repos, snapshots: new SnapshotStore(), snapshotChunk: config.snapshotChunk, dataVersion, weatherWindow };
  // Reports are made from the same snapshots requests use.
  const live = new ConditionsFeed({
    snapshots: (ids) => new RequestLoaders(loaderServices).snapshotByResort.loadMany(ids),
    version: () => dataVersion.current().version,
    checkEveryMs: config.graphql.liveCheckMs,
    logger,
  });
  life.onStop('live conditions', () => live.close());

  /** When this replica last published or applied a run's window (for /metrics). */
  let windowAt: Date | null = null;
  metrics.observe({ live: () => live.stats, windowAt: () => windowAt });
  const windowChanged = () => {
    windowAt = now();
    dataVersion.published();
    void live.changed();
  };
  // Real providers fill the window only through runs: start one when today's data is missing
  // (with replicas, the sync leader does, when it takes the lease).
  const windowMissing = () => {
    const { from, to } = windowFor(weatherWindow.today());
    return providers.conditions !== simulatedProvider && config.syncIntervalMinutes > 0 && repos.weather.resortsCovering(from, to) < repos.resorts.all().length;
  };
  sync.recover();
  sync.schedule(config.syncIntervalMinutes);
  const windows = new WindowStore(backgroundDb);
  const cluster = replicas
    ? new replicas.cluster.ClusterSync({
        link: replicas.redis,
        runner: sync,
        windows,
        replicaId: replicas.replicaId,
        logger,
        now,
        onApplied: windowChanged,
        windowMissing,
      })
    : null;
  if (cluster) life.onClose('cluster sync', () => cluster.stop());
  sync.onPublished(windowChanged);
  if (cluster) await cluster.join();
  else if (windowMissing()) sync.start('SCHEDULED');

  return {
    ...loaderServices,
    live,
    zipIndex: new Lazy(() => new ZipSpatialIndex(repos.zips.table())),
    resortIndex: new Lazy(() => PointIndex.of(repos.resorts.all(), (r) => r.id)),
    weatherWindow,
    dataVersion,
    history: new HistoryService(providers.history),
    sync: cluster ?? sync,
    // With replicas, one budget per key for the whole cluster (counted in Redis).
    costBudget: new CostBudget(
      config.costBudget.unitsPerRequest,
      config.costBudget.windowSeconds,
      () => now().getTime(),
      replicas ? replicas.cluster.clusterBudgetLimiter(replicas.redis) : undefined,
    ),
    logger,
    now,
  };
}
