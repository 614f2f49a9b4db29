import { z } from 'zod';
import { SyncHistoryParams } from '../../validation/sync-params.js';
import { route } from './route.js';
import * as R from './responses.js';
import { RestRunSyncDocument, RestSyncHistoryDocument, RestSyncStatusDocument } from './operations/generated.js';

/** The documented sync paths (operations in operations/sync.graphql). */
export const syncRoutes = [
  route({
    freshness: 'none',
    path: '/api/sync/status',
    summary: 'The sync run going on, if any, and the last one.',
    response: R.SyncStatus,
    params: z.object({}),
    operation: RestSyncStatusDocument,
    shape: (d) => d.syncStatus,
  }),
  route({
    freshness: 'none',
    path: '/api/sync/run',
    summary: 'Starts a sync run unless one is going (needs a key with the admin scope).',
    response: R.SyncStatus,
    method: 'POST',
    params: z.object({}),
    operation: RestRunSyncDocument,
    shape: (d) => d.runSync,
  }),
  route({
    freshness: 'none',
    path: '/api/sync/history',
    summary: 'Recent sync runs, newest first.',
    response: R.SyncHistory,
    params: SyncHistoryParams,
    operation: RestSyncHistoryDocument,
    shape: (d, p) => ({ limit: p.limit, runs: d.syncHistory }),
  }),
];
