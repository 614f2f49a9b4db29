import { z } from 'zod';
import { route } from './route.js';
import * as R from './responses.js';
import { RestHealthDocument } from './operations/generated.js';

export const healthRoutes = [
  route({
    freshness: 'none',
    path: '/health',
    summary: 'The service is up (needs a key; /livez and /readyz do not).',
    response: R.Health,
    params: z.object({}),
    operation: RestHealthDocument,
    shape: (d) => d.health,
  }),
];
