import type { Logger } from '../lib/logger.js';
import { ProviderCalls } from '../lib/provider-calls.js';
import type { Repositories } from '../data/repositories/index.js';
import type { ZipSpatialIndex } from '../domain/zip-spatial-index.js';
import type { PointIndex } from '../domain/point-index.js';
import type { Lazy } from '../lib/lazy.js';
import type { ResortRecord } from '../data/repositories/resorts.js';
import type { WeatherWindow } from '../weather/window.js';
import type { SnapshotStore } from '../data/snapshots/store.js';
import type { DataVersion } from '../data/data-version.js';
import type { HistoryService } from '../history/service.js';
import type { SyncService } from '../sync/runner.js';
import type { ConditionsFeed } from '../live/conditions-feed.js';
import type { BudgetHolder, CostBudget } from '../auth/cost-budget.js';
import { RequestLoaders, type Loaders } from '../data/loaders.js';

/** What lives for the whole process and is shared by every request. */
export interface Services {
  repos: Repositories;
  /** Built after the server listens (or by the first request that needs it). */
  zipIndex: Lazy<ZipSpatialIndex>;
  resortIndex: Lazy<PointIndex<ResortRecord>>;
  weatherWindow: WeatherWindow;
  /** Snapshots shared across requests until the hour, the weather or the inventory changes. */
  snapshots: SnapshotStore;
  /** The version of the data (data-version.ts): snapshots' generation and response-cache keys. */
  dataVersion: DataVersion;
  /** Resorts whose snapshots are loaded and built per turn of the event loop. */
  snapshotChunk: number;
  history: HistoryService;
  sync: SyncService;
  /** Live conditions: who listens to which resort's report (conditionsChanged). */
  live: ConditionsFeed;
  /** Each key's cost budget per window. */
  costBudget: CostBudget;
  logger: Logger;
  /** Injected so anything time-dependent is reproducible in tests. */
  now: () => Date;
}

/** One per request, REST or GraphQL: fresh DataLoaders so caching never leaks between requests. */
export interface GraphQLContext extends Services {
  /** Created on first use: a request that loads nothing creates none. */
  readonly loaders: Loaders;
  requestId: string;
  /** The request's logger (with its id), created on first use. */
  readonly logger: Logger;
  /** Aborted when the client goes away or the deadline passes (made on first use). */
  readonly signal: AbortSignal | undefined;
  /** What the operation costs, once the cost analysis has run. */
  cost?: number;
  /** The key's scopes (space-separated; 'admin' may start sync runs). */
  readonly scopes: string;
  /** The key's id, for its cost budget (null with AUTH=off). */
  readonly keyId: number | null;
  /** Whose cost budget this request spends (null with AUTH=off). */
  readonly budgetHolder: BudgetHolder | null;
  /** When the request's deadline passes (performance.now() time), for upstream calls to fit inside it. */
  readonly deadline: number;
  /** The request's provider calls, given up first at its deadline (made on first use). */
  readonly providers: ProviderCalls;
}

/** The request a context serves (the dispatcher's Exchange). */
export interface RequestInfo {
  readonly requestId: string;
  readonly signal: AbortSignal;
  readonly scopes: string;
  readonly keyId: number | null;
  readonly keyRate: number;
  readonly due: number;
  /** Its provider calls, where its deadline finds them (made by the context on first use). */
  providers?: ProviderCalls;
}

/**
 * Builds request contexts over the shared services. A context is a small object whose prototype
 * carries the services, so creating one copies nothing; loaders and the child logger are made
 * only when a resolver asks for them.
 */
export function contextFactory(services: Services): (request: RequestInfo) => GraphQLContext {
  const proto = Object.create(services, {
    loaders: {
      get(this: { _loaders?: Loaders }) {
        return (this._loaders ??= new RequestLoaders(services));
      },
    },
    logger: {
      get(this: { _logger?: Logger; requestId: string }) {
        return (this._logger ??= services.logger.child({ reqId: this.requestId }));
      },
    },
    signal: {
      get(this: { _request: RequestInfo }) {
        return this._request.signal;
      },
    },
    scopes: {
      get(this: { _request: RequestInfo }) {
        return this._request.scopes;
      },
    },
    keyId: {
      get(this: { _request: RequestInfo }) {
        return this._request.keyId;
      },
    },
    deadline: {
      get(this: { _request: RequestInfo }) {
        return this._request.due;
      },
    },
    providers: {
      get(this: { _request: RequestInfo }) {
        return (this._request.providers ??= new ProviderCalls());
      },
    },
    budgetHolder: {
      get(this: { _request: RequestInfo }) {
        const r = this._request;
        return r.keyId === null ? null : { id: r.keyId, ratePerSecond: r.keyRate };
      },
    },
  });
  return (request) => {
    const ctx = Object.create(proto) as GraphQLContext & { _request: RequestInfo };
    ctx.requestId = request.requestId;
    ctx._request = request;
    return ctx;
  };
}
