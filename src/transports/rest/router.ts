import { GraphQLError, type DocumentNode } from 'graphql';
import { parseParams } from '../../validation/validate.js';
import { badInput } from '../../lib/errors.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { CACHE_NONE, JSON_TYPE } from '../../http/headers.js';
import type { Exchange } from '../../http/exchange.js';
import { sendProblem } from '../../http/problem.js';
import { PERCENT_ENCODING, readQuery } from '../../http/query-string.js';
import type { Problem } from '../../lib/errors.js';
import type { ResponseCache } from '../../http/response-cache.js';
import { TRANSPORTS, type OperationRequest } from '../../operation/operation.js';
import type { Pipeline } from '../../operation/pipeline.js';
import { sendKept } from '../graphql/answer.js';
import type { RestRoute } from './route.js';
import { createRouteTable, type RouteMatch } from './route-table.js';
import { negotiateList, OFFERED } from './list-formats.js';
import { ListForm } from './list-stream.js';
import type { Freshness } from '../../data/data-version.js';

/** A list's answer depends on the Accept header too. */
const VARY_ACCEPT = ['vary', 'accept'];

export interface RestRouterDeps {
  routes: readonly RestRoute[];
  pipeline: Pipeline;
  cache: ResponseCache;
  makeContext: (ex: Exchange) => GraphQLContext;
  /** The version of data of a freshness (data-version.ts): what a streamed list's ETag is made from. */
  versionOf: (freshness: Freshness) => string;
  /** How long a client may keep an answer of that data (data-version.ts). */
  cacheControlOf: (freshness: Freshness) => string;
}

/**
 * Mounts the route table: what is REST's own (routing, parameters, shapes, problem+json). A request
 * matches a route and validates its parameters once (the resolvers trust them); then the route's
 * operation, one of the server's own trusted documents (validated when it was generated), runs
 * through the operation pipeline like any GraphQL request: the response cache (a GET's answer is a
 * version of the data, kept shaped), the cost limit and budget, execution, the error policy.
 */
export function createRestRouter({ routes, pipeline, cache, makeContext, versionOf, cacheControlOf }: RestRouterDeps) {
  const table = createRouteTable(routes);

  /** Returns false when no route matches, so the caller can answer 404. */
  async function handle(ex: Exchange): Promise<boolean> {
    const found = table.match(ex.path);
    if (!found) return false;
    await answer(ex, found);
    return true;
  }

  async function answer(ex: Exchange, found: RouteMatch): Promise<void> {
    const { route, allow, methods, columns, lists } = found.mounted;
    ex.route = route.path;
    const method = ex.req.method ?? '';
    if (!methods.has(method)) {
      sendProblem(ex, { status: 405, code: 'METHOD_NOT_ALLOWED', detail: `${method} is not allowed here; use ${allow}`, headers: ['allow', allow] });
      return;
    }
    // A list answers JSON, CSV or NDJSON, as the Accept header asks.
    const format = columns ? negotiateList(ex.req.headers.accept) : 'json';
    if (format === null) {
      const value = ex.req.headers.accept ?? null;
      sendProblem(ex, {
        status: 406,
        code: 'NOT_ACCEPTABLE',
        detail: `This list is answered as ${OFFERED}; the request accepts ${JSON.stringify(value)}.`,
        errors: [{ name: 'accept', value, bound: OFFERED, message: `accept must name ${OFFERED}` }],
        headers: VARY_ACCEPT,
      });
      return;
    }
    let context: GraphQLContext | undefined;
    try {
      const raw: Record<string, unknown> = {};
      if (ex.query) {
        const read = readQuery(ex.query);
        if (!read.ok) throw notPercentEncoded(read.name, read.value);
        const search = read.params;
        for (const key of new Set(search.keys())) {
          const all = search.getAll(key);
          // `codes=a&codes=` is `codes=a,`: both forms of a list read alike, empty items and all.
          raw[key] = all.length === 1 ? all[0] : lists.has(key) ? all.join(',') : all;
        }
      }
      for (const [k, v] of found.pathParams) raw[k] = decodePathSegment(k, v);
      const parsed = parseParams(route.params, raw);
      if (!parsed.ok) {
        const { message, extensions } = badInput(parsed.problems);
        sendProblem(ex, problemFrom(message, extensions));
        return;
      }
      const params = parsed.value;
      const overGet = route.method !== 'POST';
      // CSV and NDJSON stream from the operation's data (list-stream.ts); a client that has this
      // version of them is answered before anything runs. The process's own id keeps a tag from
      // matching another process's answer.
      const form =
        format === 'json'
          ? null
          : new ListForm(format, `${route.path}\n${JSON.stringify(params)}\n${format}\n${versionOf('static')}\n${versionOf(route.freshness)}`);
      const keepFor = () => ['cache-control', cacheControlOf(route.freshness)];
      if (form?.matches(ex.req.headers['if-none-match'])) {
        await form.send(ex, null, columns!, keepFor());
        return;
      }
      const request: OperationRequest = {
        own: route.operation as DocumentNode,
        variables: route.variables ? route.variables(params) : params,
        // No cross-site concern (the CSRF step passes the server's own documents): a route runs only
        // its own operation, and a GET route a query.
        overGet,
        ...(overGet && !form
          ? { keep: { key: `${route.path}\n${JSON.stringify(params)}`, serialize: (data: unknown) => JSON.stringify(route.shape(data as never, params)) } }
          : {}),
      };
      // A kept answer first, by the response-cache step's own lookup (the steps before it pass a
      // route's document by construction); else the whole list.
      let outcome = pipeline.keptForOwn(request);
      if (!outcome) {
        context = makeContext(ex);
        const running = pipeline.run(request, TRANSPORTS.rest, context);
        outcome = running instanceof Promise ? await running : running;
        ex.cost = context.cost ?? 0;
        if (ex.answered) return;
      }
      if (outcome.kind === 'kept') {
        // No name in this async frame holds the body while it is compressed (see exchange.ts).
        await sendKept(ex, outcome, cache, JSON_TYPE, columns ? VARY_ACCEPT : undefined);
        return;
      }
      const errors = outcome.kind === 'refused' ? outcome.errors : outcome.kind === 'result' ? outcome.result.errors : undefined;
      if (errors?.length) {
        // A refusal's own headers (a budget's RateLimit in place of the quota's, a 405's Allow).
        if (outcome.kind === 'refused' && outcome.headers) ex.replaceHeaders(outcome.headers);
        sendProblem(ex, problemOf(errors[0], ex, context ?? makeContext(ex), outcome.kind === 'refused' ? outcome.status : undefined));
        return;
      }
      if (outcome.kind !== 'result') throw new Error(`a REST route's operation answered with a ${outcome.kind}`);
      if (form) {
        const body = route.shape(outcome.result.data as never, params) as Record<string, unknown[]>;
        await form.send(ex, body[route.list!]!, columns!, keepFor());
        return;
      }
      await ex.sendCompressible(200, JSON_TYPE, JSON.stringify(route.shape(outcome.result.data as never, params)), ['cache-control', CACHE_NONE]);
    } catch (err) {
      sendProblem(ex, problemOf(err, ex, context ?? makeContext(ex)));
    }
  }

  return { handle };
}

function decodePathSegment(name: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw notPercentEncoded(name, value);
  }
}

function notPercentEncoded(name: string, value: string): GraphQLError {
  return new GraphQLError(`${name} is not ${PERCENT_ENCODING}`, {
    extensions: {
      code: 'BAD_USER_INPUT',
      status: 400,
      errors: [{ name, value, bound: PERCENT_ENCODING, message: `${name} must be ${PERCENT_ENCODING}` }],
    },
  });
}

const INTERNAL: Problem = { status: 500, code: 'INTERNAL_SERVER_ERROR', detail: 'Unexpected error; it has been logged with this request id.' };

/** An error's status, code and parameter problems (its extensions) as problem+json. */
function problemFrom(detail: string, extensions: { status: number; code: string; errors?: unknown }): Problem {
  return { status: extensions.status, code: extensions.code, detail, errors: extensions.errors as unknown[] | undefined };
}

/**
 * Our own errors carry their status; the executor's error policy has logged and masked anything
 * else as INTERNAL_SERVER_ERROR. What fails outside the executor (shaping) is logged here.
 */
function problemOf(err: unknown, ex: Exchange, context: GraphQLContext, status?: number): Problem {
  const ext = (err as GraphQLError)?.extensions;
  const original = (err as GraphQLError)?.originalError;
  const known = ext && typeof ext.status === 'number' && typeof ext.code === 'string' ? ext : (original as GraphQLError | undefined)?.extensions;
  if (known && typeof known.status === 'number' && typeof known.code === 'string') {
    return problemFrom((err as Error).message, { status: known.status, code: known.code, errors: known.errors });
  }
  // A refusal of the pipeline's: its status, and the code it gave.
  if (status !== undefined && typeof ext?.code === 'string') return problemFrom((err as Error).message, { status, code: ext.code });
  if (ext?.code !== 'INTERNAL_SERVER_ERROR') context.logger.error({ err: original ?? err, path: ex.path }, 'unexpected error in a REST route');
  return INTERNAL;
}
