import type { Logger } from '../logger.js';
import type { Repositories } from '../repositories/index.js';
import type { ZipSpatialIndex } from '../domain/zip-spatial-index.js';
import type { PointIndex } from '../domain/point-index.js';
import type { ResortRecord } from '../repositories/resorts.js';
import type { WeatherWindow } from '../weather/window.js';
import type { SnapshotCache } from './snapshot-cache.js';
import type { HistoryService } from '../history/service.js';
import type { SyncRunner } from '../sync/runner.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What lives for the whole process and is shared by every request. */
export interface Services {
  repos: Repositories;
  zipIndex: ZipSpatialIndex;
  resortIndex: PointIndex<ResortRecord>;
  weatherWindow: WeatherWindow;
  /** Snapshots shared across requests until the day, the weather or the inventory changes. */
  snapshots: SnapshotCache;
  history: HistoryService;
  sync: SyncRunner;
  logger: Logger;
  /** Injected so anything time-dependent is reproducible in tests. */
  now: () => Date;
}

/** One per request, REST or GraphQL: fresh DataLoaders so caching never leaks between requests. */
export interface GraphQLContext extends Services {
  loaders: Loaders;
  requestId: string;
  /** Aborted when the client goes away (ends subscriptions). */
  signal?: AbortSignal;
}

export function createContext(services: Services, requestId: string, logger: Logger = services.logger, signal?: AbortSignal): GraphQLContext {
  return { ...services, logger, requestId, signal, loaders: createLoaders(services) };
}
