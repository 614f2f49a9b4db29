import { GraphQLError, type DocumentNode } from 'graphql';
import { parseParams } from '../validation/validate.js';
import { badInput } from '../errors.js';
import type { GraphQLContext } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import { CostLimitedError } from '../auth/cost-budget.js';
import { CACHE_NONE, CACHE_REVALIDATE, JSON_TYPE } from '../http/headers.js';
import type { Exchange } from '../http/exchange.js';
import { sendProblem, type Problem } from '../http/problem.js';
import type { ResponseCache } from '../http/response-cache.js';
import type { Freshness, RestRoute } from './route.js';

interface MountedRoute {
  route: RestRoute;
  segments: string[];
  allow: string;
  methods: ReadonlySet<string>;
  /** Handed to the executor on first use (or by warm()). */
  trusted?: DocumentNode;
}

export interface RestRouterDeps {
  routes: readonly RestRoute[];
  executor: Executor;
  cache: ResponseCache;
  /** The data version a route's answer depends on (part of its cache key). */
  versionOf: (freshness: Freshness) => string;
  makeContext: (ex: Exchange) => GraphQLContext;
}

/**
 * Mounts the route table: what is REST's own (routing, parameters, shapes, ETags, problem+json).
 * Each route's operation is one of ours, validated when it is generated (see Executor.trust); a request then matches a route, validates its parameters once (the
 * resolvers trust them), and either answers from the response cache (304 when the client has the
 * same ETag) or runs the operation through the one GraphQL executor (cost limit and budget,
 * graphql-jit, error policy) and stores the serialized answer.
 */
export function createRestRouter({ routes, executor, cache, versionOf, makeContext }: RestRouterDeps) {
  const bySegmentCount = new Map<number, MountedRoute[]>();
  for (const route of routes) {
    const segments = route.path.split('/').slice(1);
    const method = route.method ?? 'GET';
    const list = bySegmentCount.get(segments.length) ?? [];
    const methods = method === 'GET' ? ['GET', 'HEAD'] : [method];
    list.push({ route, segments, allow: methods.join(', '), methods: new Set(methods) });
    bySegmentCount.set(segments.length, list);
  }

  function operationOf(m: MountedRoute): DocumentNode {
    if (m.trusted) return m.trusted;
    executor.trust(m.route.operation);
    return (m.trusted = m.route.operation);
  }

  function match(path: string): { mounted: MountedRoute; pathParams: [string, string][] } | null {
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
      if (ok) return { mounted: c, pathParams };
    }
    return null;
  }

  /** Returns false when no route matches, so the caller can answer 404. */
  async function handle(ex: Exchange): Promise<boolean> {
    const found = match(ex.path);
    if (!found) return false;
    const { route, allow, methods } = found.mounted;
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
      const parsed = parseParams(route.params, raw);
      if (!parsed.ok) {
        const { message, extensions } = badInput(parsed.problems);
        sendProblem(ex, problemFrom(message, extensions));
        return true;
      }
      const params = parsed.value;
      const document = operationOf(found.mounted);
      const variables = (route.variables ? route.variables(params) : params) as Record<string, unknown>;

      const key = route.freshness === 'none' ? null : `${route.path}\n${versionOf(route.freshness)}\n${JSON.stringify(params)}`;
      let answer = key ? cache.get(key) : undefined;
      if (!answer) {
        // What is computed is charged to the key's cost budget (by the executor); a kept answer costs nothing.
        const context = makeContext(ex);
        const result = await executor.begin(context).execute(document, variables);
        ex.cost = context.cost ?? 0;
        if (ex.answered) return true;
        if (result.errors?.length) {
          const error = result.errors[0]!;
          if (error instanceof CostLimitedError) ex.replaceHeaders(error.headers);
          sendProblem(ex, problemOf(error, ex, context));
          return true;
        }
        if (!key) {
          // No name in this async frame holds the body while it is compressed (see exchange.ts).
          await ex.sendCompressible(200, JSON_TYPE, JSON.stringify(route.shape(result.data as never, params)), ['cache-control', CACHE_NONE]);
          return true;
        }
        answer = cache.put(key, JSON.stringify(route.shape(result.data as never, params)));
      }
      // A kept answer is compressed once and keeps what it made (the cache counts those bytes).
      const held = answer.encodedBytes;
      const sending = ex.sendRepresentation(JSON_TYPE, answer, ['cache-control', CACHE_REVALIDATE]);
      if (sending) {
        await sending;
        if (answer.encodedBytes !== held) cache.resized(key!, answer);
      }
    } catch (err) {
      sendProblem(ex, problemOf(err, ex, makeContext(ex)));
    }
    return true;
  }

  return {
    handle,
    /** Hands every route's operation to the executor now. */
    warm(): void {
      for (const list of bySegmentCount.values()) for (const m of list) operationOf(m);
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

const INTERNAL: Problem = { status: 500, code: 'INTERNAL_SERVER_ERROR', detail: 'Unexpected error; it has been logged with this request id.' };

/** An error's status, code and parameter problems (its extensions) as problem+json. */
function problemFrom(detail: string, extensions: { status: number; code: string; errors?: unknown }): Problem {
  return { status: extensions.status, code: extensions.code, detail, errors: extensions.errors as unknown[] | undefined };
}

/**
 * Our own errors carry their status; the executor's error policy has logged and masked anything
 * else as INTERNAL_SERVER_ERROR. What fails outside the executor (shaping) is logged here.
 */
function problemOf(err: unknown, ex: Exchange, context: GraphQLContext): Problem {
  const ext = (err as GraphQLError)?.extensions;
  const original = (err as GraphQLError)?.originalError;
  const known = ext && typeof ext.status === 'number' && typeof ext.code === 'string' ? ext : (original as GraphQLError | undefined)?.extensions;
  if (known && typeof known.status === 'number' && typeof known.code === 'string') {
    return problemFrom((err as Error).message, { status: known.status, code: known.code, errors: known.errors });
  }
  if (ext?.code !== 'INTERNAL_SERVER_ERROR') context.logger.error({ err: original ?? err, path: ex.path }, 'unexpected error in a REST route');
  return INTERNAL;
}
