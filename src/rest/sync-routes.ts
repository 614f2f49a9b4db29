import { z } from 'zod';
import { SyncHistoryParams } from '../validation/sync-params.js';
import { route } from './route.js';
import { RestRunSyncDocument, RestSyncHistoryDocument, RestSyncStatusDocument } from './operations/generated.js';

/** The documented sync paths (operations in operations/sync.graphql). */
export const syncRoutes = [
  route({
    freshness: 'none',
    path: '/api/sync/status',
    params: z.object({}),
    operation: RestSyncStatusDocument,
    shape: (d) => d.syncStatus,
  }),
  route({
    freshness: 'none',
    path: '/api/sync/run',
    method: 'POST',
    params: z.object({}),
    operation: RestRunSyncDocument,
    shape: (d) => d.runSync,
  }),
  route({
    freshness: 'none',
    path: '/api/sync/history',
    params: SyncHistoryParams,
    operation: RestSyncHistoryDocument,
    shape: (d, p) => ({ limit: p.limit, runs: d.syncHistory }),
  }),
];
