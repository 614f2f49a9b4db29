import type { z } from 'zod';

/**
 * How long a route's answer stays right: `static` answers change only with the data set itself
 * (a rebuild, which is a new process); `data` answers change with the hour, the stored weather
 * and the inventory; `none` answers (health, sync) are never kept.
 */
export type Freshness = 'static' | 'data' | 'none';

/**
 * One documented REST path: its parameters (the shared zod schema over path and query values),
 * the one GraphQL operation that answers it, and how the documented response is shaped from it.
 */
export interface RestRoute<P extends z.ZodType = z.ZodType> {
  path: string;
  /** GET unless said otherwise; a documented POST takes no body. */
  method?: 'GET' | 'POST';
  params: P;
  operation: string;
  /** GraphQL variables from the validated parameters; by default the parameters themselves. */
  variables?: (params: z.output<P>) => Record<string, unknown>;
  shape: (data: any, params: z.output<P>) => unknown;
  freshness: Freshness;
}

/** Keeps each route's parameter type attached to its own callbacks inside a heterogeneous table. */
export const route = <P extends z.ZodType>(r: RestRoute<P>): RestRoute => r as unknown as RestRoute;
