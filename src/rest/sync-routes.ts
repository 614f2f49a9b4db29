import { z } from 'zod';
import { SyncHistoryParams } from '../validation/sync-params.js';
import { route } from './route.js';

const RUN = 'id trigger provider startedAt finishedAt status resortsUpdated resortsFailed error';
const STATUS = `state provider progress { done total } lastRun { ${RUN} } nextScheduledRun`;

export const syncRoutes = [
  route({
    freshness: 'none',
    path: '/api/sync/status',
    params: z.object({}),
    operation: `query SyncStatus { syncStatus { ${STATUS} } }`,
    shape: (d) => d.syncStatus,
  }),
  route({
    freshness: 'none',
    path: '/api/sync/run',
    method: 'POST',
    params: z.object({}),
    operation: `mutation RunSync { runSync { ${STATUS} } }`,
    shape: (d) => d.runSync,
  }),
  route({
    freshness: 'none',
    path: '/api/sync/history',
    params: SyncHistoryParams,
    operation: `query SyncHistory($limit: Int) { syncHistory(limit: $limit) { ${RUN} } }`,
    shape: (d, p) => ({ limit: p.limit, runs: d.syncHistory }),
  }),
];
