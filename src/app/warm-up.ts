import type { GraphQLContext, RequestInfo, Services } from '../graphql/context.js';
import { routes } from '../transports/rest/routes.js';
import type { DocumentNode } from 'graphql';
import { TRANSPORTS } from '../operation/operation.js';
import type { Pipeline } from '../operation/pipeline.js';
import type { RestRoute } from '../transports/rest/route.js';
import { validate } from '../validation/validate.js';
import { nextTurn } from '../lib/turn.js';

/** Real values for every route's required parameters (the ZIP and resort data are the server's own). */
export interface WarmUpSamples {
  zip: string;
  state: string;
  city: string;
  id: string;
  with: string;
  /** Two ZIP codes for a distance, several for a bulk lookup, a point for a reverse one. */
  from: string;
  to: string;
  codes: string;
  lat: number;
  lng: number;
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
    // Every parameter a sample is for (path parameters, compare's `with`, a bulk lookup's codes, a
    // point); the rest take their defaults.
    const raw: Record<string, unknown> = {};
    for (const name of Object.keys((route.params as unknown as { shape: object }).shape)) if (name in samples) raw[name] = samples[name as keyof WarmUpSamples];
    const params = validate(route.params, raw);
    const variables = (route.variables ? route.variables(params) : params) as Record<string, unknown>;
    // The route's own operation through the same pipeline as a request (kept answers aside: nothing is stored).
    await pipeline.run({ own: route.operation as DocumentNode, variables }, TRANSPORTS.warmUp, context);
    await nextTurn();
  }
}

/**
 * Once the server listens (a moment later, so the first requests are not kept waiting), what only
 * some requests need, a piece per turn of the event loop: graphql-jit and prom-client loaded, the
 * tables and indexes built, today's weather window, and `rounds` of every route's operation.
 * With no rounds, nothing is built ahead: tables, indexes and operations are built by the first
 * request that needs them (a server that only answers resorts never reads the ZIPs).
 */
export async function warmAfterListening(
  {
    pipeline,
    newContext,
    services,
    loadMetrics,
  }: { pipeline: Pipeline; newContext: (request: RequestInfo) => GraphQLContext; services: Services; loadMetrics: () => Promise<unknown> },
  delayMs: number,
  rounds: number,
): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
  await pipeline.loadCompiler();
  await loadMetrics();
  if (rounds === 0) {
    await services.weatherWindow.ensureCurrent();
    return;
  }
  const { repos } = services;
  repos.zips.warm();
  await nextTurn();
  services.zipIndex.warm();
  await nextTurn();
  services.resortIndex.warm();
  await services.weatherWindow.ensureCurrent();
  const zips = repos.zips.table();
  const resorts = repos.resorts.all();
  const samplesOf = (round: number): WarmUpSamples => {
    const row = (round * 997) % zips.size;
    const other = (row + 4999) % zips.size;
    const resort = resorts[round % resorts.length]!;
    return {
      zip: zips.zipAt(row),
      state: zips.stateCodeAt(row),
      city: zips.cityAt(row),
      id: resort.id,
      with: resorts[(round + 1) % resorts.length]!.id,
      from: zips.zipAt(row),
      to: zips.zipAt(other),
      codes: `${zips.zipAt(row)},${zips.zipAt(other)}`,
      lat: resort.lat,
      lng: resort.lng,
    };
  };
  if (zips.size > 0 && resorts.length > 1) await warmUp(routes, pipeline, newContext, samplesOf, rounds);
}
