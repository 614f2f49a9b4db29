import type { RestRoute } from './route.js';
import { healthRoutes } from './health-routes.js';
import { zipRoutes } from './zip-routes.js';
import { resortRoutes } from './resort-routes.js';
import { syncRoutes } from './sync-routes.js';

/** Every documented REST path; the router mounts each at / and at /v1. */
export const routes: readonly RestRoute[] = [...healthRoutes, ...zipRoutes, ...resortRoutes, ...syncRoutes];
