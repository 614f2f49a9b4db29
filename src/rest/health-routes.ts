import { z } from 'zod';
import { route } from './route.js';

export const healthRoutes = [
  route({
    freshness: 'none',
    path: '/health',
    params: z.object({}),
    operation: 'query Health { health { status service timestamp } }',
    shape: (d) => d.health,
  }),
];
