import { z } from 'zod';
import { route } from './route.js';
import { RestHealthDocument } from './operations/generated.js';

export const healthRoutes = [
  route({
    freshness: 'none',
    path: '/health',
    params: z.object({}),
    operation: RestHealthDocument,
    shape: (d) => d.health,
  }),
];
