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
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-guard.js';
import { sendProblem } from './problem.js';
import type { StreamLimiter } from './streams.js';

type MakeContext = (ex: Exchange) => GraphQLContext;

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/**
 * /graphql. Plain JSON POSTs, nearly all GraphQL traffic, take the fast path: our body reader,
 * then the one executor (graphql/executor.ts), with no Fetch-API layer. Everything else (GET
 * queries, SSE subscriptions, odd bodies) goes to Yoga, loaded on first use, running the
 * executor's plugin list; so limits, masking and codes are the same on both. (The GraphiQL page
 * is served by http/pages.ts.)
 */
export function createGraphQLHandler(schema: GraphQLSchema, executor: Executor, finalizeResult: FinalizeResult, services: Services, config: Config, makeContext: MakeContext, streams: StreamLimiter) {
  let yoga: Promise<YogaHandler> | null = null;
  const loadYoga = () => (yoga ??= import('./yoga-handler.js').then((m) => m.createYogaHandler(schema, executor.plugins, finalizeResult, services.logger)));

  async function viaYoga(ex: Exchange, body?: Buffer): Promise<void> {
    if (wantsStream(ex.req)) {
      const refused = streams.admit(ex);
      if (refused) return sendProblem(ex, refused);
    }
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
      // Yoga serves one endpoint; /v1/graphql is the same one.
      if (req.url?.startsWith('/v1/')) req.url = req.url.slice(3);
      if (req.method === 'POST') {
        const media = mediaTypeOf(req);
        if (!POST_MEDIA_TYPES.includes(media)) return unsupportedMediaType(ex, media);
        const body = await readBody(req, config.maxBodyBytes);
        if (media !== 'application/graphql' && nestsDeeperThan(body)) return tooDeep(ex, 'body');
        if (isFastPath(req, media)) return fast(ex, body);
        return viaYoga(ex, body);
      }
      if (req.method === 'GET') {
        const params = new URLSearchParams(ex.query);
        for (const name of ['variables', 'extensions']) {
          const value = params.get(name);
          if (value && nestsDeeperThan(value)) return tooDeep(ex, name);
        }
        return viaYoga(ex);
      }
      sendProblem(ex, { status: 405, code: 'METHOD_NOT_ALLOWED', detail: `${req.method} is not allowed on /graphql; use GET or POST.`, headers: ['allow', 'GET, POST'] });
    },
  };
}

/** What POST /graphql reads: JSON (and its older GraphQL name), or a query as plain GraphQL text. */
const POST_MEDIA_TYPES = ['application/json', 'application/graphql+json', 'application/graphql'];

function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

function unsupportedMediaType(ex: Exchange, media: string): void {
  const bound = POST_MEDIA_TYPES.join(', ');
  sendProblem(ex, {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    detail: `POST /graphql takes ${bound}; the request's content-type is ${media ? JSON.stringify(media) : 'missing'}.`,
    errors: [{ name: 'content-type', value: media || null, bound, message: `content-type must be one of ${bound}` }],
    headers: ['accept-post', bound],
  });
}

/** JSON nested past MAX_JSON_DEPTH: refused before anything parses or walks it. */
function tooDeep(ex: Exchange, name: string): void {
  const bound = `JSON nested at most ${MAX_JSON_DEPTH} levels deep`;
  sendProblem(ex, { status: 400, code: 'BAD_REQUEST', detail: `The request's ${name} nests deeper than ${MAX_JSON_DEPTH} levels.`, errors: [{ name, bound, message: `${name} must be ${bound}` }] });
}

export type YogaHandler = (ex: Exchange, context: GraphQLContext) => Promise<void>;

/** Whether the client asks for an event stream (SSE or multipart), which holds its connection. */
function wantsStream(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return accept !== undefined && (accept.includes('text/event-stream') || accept.includes('multipart/mixed'));
}

/** A JSON POST that wants a single JSON result (not a stream). */
function isFastPath(req: IncomingMessage, media: string): boolean {
  return media === 'application/json' && !wantsStream(req);
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
