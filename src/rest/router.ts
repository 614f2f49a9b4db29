import type { IncomingMessage, ServerResponse } from 'node:http';
import { execute, parse, validate as validateDocument, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import { GraphQLError as GqlError } from 'graphql';
import { validate } from '../validation/validate.js';
import type { GraphQLContext } from '../graphql/context.js';
import type { RestRoute } from './route.js';
import { sendJson, sendProblem, type Problem } from './problem.js';

interface CompiledRoute {
  route: RestRoute;
  segments: string[];
  document: DocumentNode;
}

export interface RestRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** Path without the /v1 prefix and without the query string. */
  path: string;
  query: URLSearchParams;
  context: GraphQLContext;
}

/**
 * Mounts the route table. Each route's operation is parsed and validated against the schema once,
 * here, and run per request with graphql's `execute` — no HTTP-level GraphQL pipeline per call.
 */
export function createRestRouter(schema: GraphQLSchema, routes: readonly RestRoute[]) {
  const compiled: CompiledRoute[] = routes.map((route) => {
    const document = parse(route.operation);
    const errors = validateDocument(schema, document);
    if (errors.length > 0) throw new Error(`REST route ${route.path}: ${errors.map((e) => e.message).join('; ')}`);
    return { route, segments: route.path.split('/').slice(1), document };
  });

  function match(path: string): { compiled: CompiledRoute; pathParams: Record<string, string> } | null {
    const parts = path.split('/').slice(1);
    for (const c of compiled) {
      if (c.segments.length !== parts.length) continue;
      const pathParams: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = c.segments[i]!;
        if (seg.startsWith(':')) pathParams[seg.slice(1)] = parts[i]!;
        else ok = seg === parts[i];
      }
      if (ok) return { compiled: c, pathParams };
    }
    return null;
  }

  /** Returns false when no route matches, so the caller can answer 404. */
  return async function handle({ req, res, path, query, context }: RestRequest): Promise<boolean> {
    const found = match(path);
    if (!found) return false;
    const instance = req.url ?? path;
    const method = found.compiled.route.method ?? 'GET';
    const allowed = method === 'GET' ? ['GET', 'HEAD'] : [method];
    if (!allowed.includes(req.method ?? '')) {
      sendProblem(res, { status: 405, code: 'METHOD_NOT_ALLOWED', detail: `${req.method} is not allowed here; use ${method}`, headers: { allow: allowed.join(', ') } }, instance, context.requestId);
      return true;
    }
    const { route, document } = found.compiled;
    try {
      const raw: Record<string, unknown> = {};
      for (const key of new Set(query.keys())) {
        const all = query.getAll(key);
        raw[key] = all.length === 1 ? all[0] : all;
      }
      for (const [k, v] of Object.entries(found.pathParams)) raw[k] = decodePathSegment(k, v);
      const params = validate(route.params, raw);
      const result = await execute({
        schema,
        document,
        contextValue: context,
        variableValues: (route.variables ? route.variables(params) : params) as Record<string, unknown>,
      });
      if (result.errors?.length) {
        sendProblem(res, problemOf(result.errors[0]!, context), instance, context.requestId);
        return true;
      }
      sendJson(res, 200, route.shape(result.data, params));
    } catch (err) {
      sendProblem(res, problemOf(err, context), instance, context.requestId);
    }
    return true;
  };
}

function decodePathSegment(name: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new GqlError(`${name} is not valid percent-encoding`, {
      extensions: { code: 'BAD_USER_INPUT', status: 400, errors: [{ name, value, bound: 'valid percent-encoded UTF-8', message: `${name} must be valid percent-encoded UTF-8` }] },
    });
  }
}

/** Our own errors carry their status; anything else is a bug, logged in full and masked. */
function problemOf(err: unknown, context: GraphQLContext): Problem {
  const ext = (err as GraphQLError)?.extensions;
  const original = (err as GraphQLError)?.originalError;
  const known = ext && typeof ext.status === 'number' && typeof ext.code === 'string' ? ext : (original as GraphQLError | undefined)?.extensions;
  if (known && typeof known.status === 'number' && typeof known.code === 'string') {
    return { status: known.status, code: known.code, detail: (err as Error).message, errors: known.errors as unknown[] | undefined };
  }
  context.logger.error({ err }, 'unexpected error in REST route');
  return { status: 500, code: 'INTERNAL_SERVER_ERROR', detail: 'Unexpected error; it has been logged with this request id.' };
}
