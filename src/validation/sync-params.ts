import { z } from 'zod';
import { integer } from './params.js';

export const SYNC_BOUNDS = { historyLimit: { default: 20, max: 100 } } as const;

export const SyncHistoryParams = z.object({
  limit: integer(1, SYNC_BOUNDS.historyLimit.max).default(SYNC_BOUNDS.historyLimit.default),
});
