import type { Logger } from '../logger.js';
import type { Repositories } from '../repositories/index.js';
import type { ZipSpatialIndex } from '../domain/zip-spatial-index.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What lives for the whole process and is shared by every request. */
export interface Services {
  repos: Repositories;
  zipIndex: ZipSpatialIndex;
  logger: Logger;
  /** Injected so anything time-dependent is reproducible in tests. */
  now: () => Date;
}

/** One per request, REST or GraphQL: fresh DataLoaders so caching never leaks between requests. */
export interface GraphQLContext extends Services {
  loaders: Loaders;
  requestId: string;
}

export function createContext(services: Services, requestId: string, logger: Logger = services.logger): GraphQLContext {
  return { ...services, logger, requestId, loaders: createLoaders(services.repos) };
}
