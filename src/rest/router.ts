import { GraphQLError, validate as validateDocument, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { validate } from '../validation/validate.js';
import type { GraphQLContext } from '../graphql/context.js';
import { overLimit, type createCostAnalysis } from '../graphql/cost.js';
import type { CostBudget } from '../auth/cost-budget.js';
import { CACHE_NONE, CACHE_REVALIDATE, JSON_TYPE } from '../http/headers.js';
import type { Exchange } from '../http/exchange.js';
import { sendProblem, type Problem } from '../http/problem.js';
import { matchesEtag, type ResponseCache } from '../http/response-cache.js';
import type { Freshness, RestRoute } from './route.js';

interface MountedRoute {
  route: RestRoute;
  segments: string[];
  allow: string;
  methods: ReadonlySet<string>;
  /** Parsed, validated and compiled on first use (or by warm()). */
  compiled?: { document: DocumentNode; query: CompiledQuery };
}

export interface RestRouterDeps {
  schema: GraphQLSchema;
  routes: readonly RestRoute[];
  costOf: ReturnType<typeof createCostAnalysis>;
  costBudget: CostBudget;
  cache: ResponseCache;
  /** The data version a route's answer depends on (part of its cache key). */
  versionOf: (freshness: Freshness) => string;
  makeContext: (ex: Exchange, argsValidated: boolean) => GraphQLContext;
}

/**
 * Mounts the route table. Each route's operation is parsed, validated and compiled with
 * graphql-jit once (on its first request, or by `warm()` after the server listens); a request
 * then matches a route, validates its parameters once (the resolvers trust them), and either
 * answers from the response cache (304 when the client has the same ETag) or runs the compiled
 * operation and stores the serialized answer.
 */
export function createRestRouter({ schema, routes, costOf, costBudget, cache, versionOf, makeContext }: RestRouterDeps) {
  const bySegmentCount = new Map<number, MountedRoute[]>();
  for (const route of routes) {
    const segments = route.path.split('/').slice(1);
    const method = route.method ?? 'GET';
    const list = bySegmentCount.get(segments.length) ?? [];
    const methods = method === 'GET' ? ['GET', 'HEAD'] : [method];
    list.push({ route, segments, allow: methods.join(', '), methods: new Set(methods) });
    bySegmentCount.set(segments.length, list);
  }

  function compile(m: MountedRoute): NonNullable<MountedRoute['compiled']> {
    if (m.compiled) return m.compiled;
    const document: DocumentNode = m.route.operation;
    const errors = validateDocument(schema, document);
    if (errors.length > 0) throw new Error(`REST route ${m.route.path}: ${errors.map((e) => e.message).join('; ')}`);
    const query = compileQuery(schema, document);
    if (!isCompiledQuery(query)) throw new Error(`REST route ${m.route.path}: ${query.errors?.map((e) => e.message).join('; ')}`);
    return (m.compiled = { document, query });
  }

  function match(path: string): { compiled: MountedRoute; pathParams: [string, string][] } | null {
    const parts = path.split('/');
    const candidates = bySegmentCount.get(parts.length - 1);
    if (!candidates) return null;
    for (const c of candidates) {
      const pathParams: [string, string][] = [];
      let ok = true;
      for (let i = 0; i < c.segments.length && ok; i++) {
        const seg = c.segments[i]!;
        if (seg.charCodeAt(0) === 58 /* : */) pathParams.push([seg.slice(1), parts[i + 1]!]);
        else ok = seg === parts[i + 1];
      }
      if (ok) return { compiled: c, pathParams };
    }
    return null;
  }

  /** Returns false when no route matches, so the caller can answer 404. */
  async function handle(ex: Exchange): Promise<boolean> {
    const found = match(ex.path);
    if (!found) return false;
    const { route, allow, methods } = found.compiled;
    ex.route = route.path;
    const method = ex.req.method ?? '';
    if (!methods.has(method)) {
      sendProblem(ex, { status: 405, code: 'METHOD_NOT_ALLOWED', detail: `${method} is not allowed here; use ${allow}`, headers: ['allow', allow] });
      return true;
    }
    try {
      const raw: Record<string, unknown> = {};
      if (ex.query) {
        const search = new URLSearchParams(ex.query);
        for (const key of new Set(search.keys())) {
          const all = search.getAll(key);
          raw[key] = all.length === 1 ? all[0] : all;
        }
      }
      for (const [k, v] of found.pathParams) raw[k] = decodePathSegment(k, v);
      const params = validate(route.params, raw);
      const { document, query } = compile(found.compiled);
      const variables = (route.variables ? route.variables(params) : params) as Record<string, unknown>;

      const cost = costOf(document, variables);
      if (cost) {
        const tooMuch = overLimit(cost);
        if (tooMuch) throw tooMuch;
      }

      const key = route.freshness === 'none' ? null : `${route.path}\n${versionOf(route.freshness)}\n${JSON.stringify(params)}`;
      let answer = key ? cache.get(key) : undefined;
      if (!answer) {
        // What is computed is charged to the key's cost budget; a kept answer costs nothing.
        if (cost) {
          ex.cost = cost.complexity;
          const refused = await costBudget.charge(ex.keyId === null ? null : { id: ex.keyId, ratePerSecond: ex.keyRate }, cost.complexity);
          if (refused) {
            ex.replaceHeaders(refused.headers);
            sendProblem(ex, { status: 429, code: 'RATE_LIMITED', detail: refused.message });
            return true;
          }
        }
        const result = (await query.query(undefined, makeContext(ex, true), variables)) as ExecutionResult;
        if (ex.answered) return true;
        if (result.errors?.length) {
          sendProblem(ex, problemOf(result.errors[0]!, ex, makeContext(ex, true)));
          return true;
        }
        const body = JSON.stringify(route.shape(result.data!, params));
        if (!key) {
          ex.send(200, JSON_TYPE, body, ['cache-control', CACHE_NONE]);
          return true;
        }
        answer = cache.put(key, body);
      }
      if (matchesEtag(ex.req.headers['if-none-match'], answer.etag)) ex.sendEmpty(304, ['etag', answer.etag, 'cache-control', CACHE_REVALIDATE]);
      else ex.send(200, JSON_TYPE, answer.body, ['etag', answer.etag, 'cache-control', CACHE_REVALIDATE]);
    } catch (err) {
      sendProblem(ex, problemOf(err, ex, makeContext(ex, true)));
    }
    return true;
  }

  return {
    handle,
    /** Compiles every route now, one per turn of the event loop, so requests are served in between. */
    async warm(): Promise<void> {
      for (const list of bySegmentCount.values()) {
        for (const m of list) {
          compile(m);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    },
  };
}

function decodePathSegment(name: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new GraphQLError(`${name} is not valid percent-encoding`, {
      extensions: { code: 'BAD_USER_INPUT', status: 400, errors: [{ name, value, bound: 'valid percent-encoded UTF-8', message: `${name} must be valid percent-encoded UTF-8` }] },
    });
  }
}

/** Our own errors carry their status; anything else is a bug, logged in full and masked. */
function problemOf(err: unknown, ex: Exchange, context: GraphQLContext): Problem {
  const ext = (err as GraphQLError)?.extensions;
  const original = (err as GraphQLError)?.originalError;
  const known = ext && typeof ext.status === 'number' && typeof ext.code === 'string' ? ext : (original as GraphQLError | undefined)?.extensions;
  if (known && typeof known.status === 'number' && typeof known.code === 'string') {
    return { status: known.status, code: known.code, detail: (err as Error).message, errors: known.errors as unknown[] | undefined };
  }
  context.logger.error({ err: original ?? err, path: ex.path }, 'unexpected error in a REST route');
  return { status: 500, code: 'INTERNAL_SERVER_ERROR', detail: 'Unexpected error; it has been logged with this request id.' };
}
