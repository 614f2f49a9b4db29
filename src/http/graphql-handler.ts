import type { IncomingMessage } from 'node:http';
import { GraphQLError, getOperationAST, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Config } from '../config.js';
import { plainContext, type GraphQLContext, type Services } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import type { FinalizeResult } from '../graphql/finalize.js';
import { readBody } from './body.js';
import { CostLimitedError } from '../auth/cost-budget.js';
import type { Exchange } from './exchange.js';
import { CACHE_NONE } from './headers.js';

type MakeContext = (ex: Exchange) => GraphQLContext;

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/**
 * /graphql. Plain JSON POSTs, nearly all GraphQL traffic, take the fast path: our body reader,
 * then the one executor (graphql/executor.ts), with no Fetch-API layer. Everything else (GET
 * queries, SSE subscriptions, odd bodies) goes to Yoga, loaded on first use, running the
 * executor's plugin list; so limits, masking and codes are the same on both. (The GraphiQL page
 * is served by http/pages.ts.)
 */
export function createGraphQLHandler(schema: GraphQLSchema, executor: Executor, finalizeResult: FinalizeResult, services: Services, config: Config, makeContext: MakeContext) {
  let yoga: Promise<YogaHandler> | null = null;
  const loadYoga = () => (yoga ??= import('./yoga-handler.js').then((m) => m.createYogaHandler(schema, executor.plugins, finalizeResult, services.logger)));

  async function viaYoga(ex: Exchange, body?: Buffer): Promise<void> {
    const handler = await loadYoga();
    if (body) (ex.req as IncomingMessage & { body?: Buffer }).body = body;
    ex.applyHeaders(CACHE_NONE);
    const ctx = makeContext(ex);
    await handler(ex, plainContext(services, ctx));
  }

  async function fast(ex: Exchange, body: Buffer): Promise<void> {
    let params: unknown;
    try {
      params = JSON.parse(body.toString('utf8'));
    } catch {
      return respond(ex, { errors: [new GraphQLError('POST body sent invalid JSON.', { extensions: { code: 'BAD_REQUEST' } })] }, 400);
    }
    if (!isPlainRequest(params)) return viaYoga(ex, body);
    const ctx = makeContext(ex);
    const run = executor.begin(ctx);
    const prepared = run.prepare(params.query);
    if (prepared.errors) return respond(ex, { errors: prepared.errors }, 200, prepared.stage === 'parse' ? 'GRAPHQL_PARSE_FAILED' : undefined);
    const operation = getOperationAST(prepared.document, params.operationName ?? undefined);
    // Subscriptions stream: only Yoga's SSE and multipart processors serve those.
    if (operation?.operation === 'subscription') return viaYoga(ex, body);
    const result = await run.execute(prepared.document, params.variables, params.operationName);
    ex.cost = ctx.cost ?? 0;
    if (ex.answered) return;
    // Without data, the request itself was wrong (bad variables, over a limit).
    respond(ex, result, result.data === undefined ? 400 : 200, 'BAD_USER_INPUT');
  }

  /**
   * The GraphQL-over-HTTP status rules, as Yoga applies them: a client accepting
   * application/graphql-response+json gets 400 for any request error; a plain application/json
   * client gets 200 for parse and validation errors (`jsonStatus`) and 400 for bad variables or JSON.
   */
  function respond(ex: Exchange, result: ExecutionResult, jsonStatus: number, codeForUncoded?: string): Promise<void> {
    const wantsGraphQLResponse = (ex.req.headers.accept ?? '').includes(GRAPHQL_RESPONSE);
    // Over the key's cost budget is 429 with its RateLimit headers, like any other rate limit.
    const limited = result.errors?.find((e): e is CostLimitedError => e instanceof CostLimitedError);
    const status = limited ? 429 : wantsGraphQLResponse && result.data === undefined ? 400 : jsonStatus;
    const body = JSON.stringify(finalizeResult(result, ex.requestId, codeForUncoded));
    if (limited) ex.replaceHeaders(limited.headers);
    return ex.sendCompressible(status, `${wantsGraphQLResponse ? GRAPHQL_RESPONSE : 'application/json'}; charset=utf-8`, body, ['cache-control', CACHE_NONE]);
  }

  return {
    async handle(ex: Exchange): Promise<void> {
      const { req } = ex;
      if (req.method === 'POST') {
        const body = await readBody(req, config.maxBodyBytes);
        if (isFastPath(req)) return fast(ex, body);
        return viaYoga(ex, body);
      }
      return viaYoga(ex);
    },
  };
}

export type YogaHandler = (ex: Exchange, context: GraphQLContext) => Promise<void>;

/** A JSON POST that wants a single JSON result (not a stream). */
function isFastPath(req: IncomingMessage): boolean {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/json')) return false;
  const accept = req.headers.accept;
  return !accept || !(accept.includes('text/event-stream') || accept.includes('multipart/mixed'));
}

interface PlainRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

function isPlainRequest(p: unknown): p is PlainRequest {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return false;
  const r = p as Record<string, unknown>;
  if (typeof r.query !== 'string') return false;
  if (r.variables !== undefined && r.variables !== null && (typeof r.variables !== 'object' || Array.isArray(r.variables))) return false;
  if (r.operationName !== undefined && r.operationName !== null && typeof r.operationName !== 'string') return false;
  // Persisted-query and other extensions are Yoga's to interpret.
  return r.extensions === undefined || r.extensions === null;
}
