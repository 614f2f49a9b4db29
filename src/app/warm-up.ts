import type { GraphQLContext, RequestInfo } from '../graphql/context.js';
import type { DocumentNode } from 'graphql';
import { TRANSPORTS } from '../operation/operation.js';
import type { Pipeline } from '../operation/pipeline.js';
import type { RestRoute } from '../transports/rest/route.js';
import { validate } from '../validation/validate.js';
import { nextTurn } from '../lib/turn.js';

/** Real values for every route's path parameters (the ZIP and resort data are the server's own). */
export interface WarmUpSamples {
  zip: string;
  state: string;
  city: string;
  id: string;
  with: string;
}

/**
 * Runs each documented GET route's operation `rounds` times, in-process, before the server says it
 * is ready: graphql-jit compiles the operations, the resorts' snapshots are built and the rankings
 * computed, and V8 optimizes the resolvers and the executor, so the first requests a load balancer
 * sends run at warm speed instead of paying for all of that (BENCHMARKS.md, design figures: warm-up). Each round takes other samples, one
 * route per turn of the event loop, so requests are served in between. Histories (provider calls,
 * costed per point) and routes that change things are left out.
 */
export async function warmUp(
  routes: readonly RestRoute[],
  pipeline: Pipeline,
  newContext: (request: RequestInfo) => GraphQLContext,
  samplesOf: (round: number) => WarmUpSamples,
  rounds: number,
): Promise<void> {
  const request: RequestInfo = {
    requestId: 'warm-up',
    signal: new AbortController().signal,
    scopes: '',
    keyId: null,
    keyRate: 0,
    due: Number.POSITIVE_INFINITY,
  };
  for (let round = 0; round < rounds; round++) await warmUpRound(routes, pipeline, newContext(request), samplesOf(round));
}

async function warmUpRound(routes: readonly RestRoute[], pipeline: Pipeline, context: GraphQLContext, samples: WarmUpSamples): Promise<void> {
  for (const route of routes) {
    if ((route.method ?? 'GET') !== 'GET' || route.freshness === 'none' || route.path.endsWith('/history')) continue;
    const raw: Record<string, unknown> = {};
    for (const [, name] of route.path.matchAll(/:(\w+)/g)) raw[name!] = samples[name as keyof WarmUpSamples];
    if ('with' in (route.params as unknown as { shape: object }).shape) raw.with = samples.with;
    const params = validate(route.params, raw);
    const variables = (route.variables ? route.variables(params) : params) as Record<string, unknown>;
    // The route's own operation through the same pipeline as a request (kept answers aside: nothing is stored).
    await pipeline.run({ own: route.operation as DocumentNode, variables }, TRANSPORTS.warmUp, context);
    await nextTurn();
  }
}
