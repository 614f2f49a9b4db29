import type { IncomingMessage } from 'node:http';
import { GraphQLError, getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Config } from '../config.js';
import { plainContext, type GraphQLContext, type Services } from '../graphql/context.js';
import type { Executor } from '../graphql/executor.js';
import type { FinalizeResult } from '../graphql/finalize.js';
import { withCost } from '../graphql/cost-extension.js';
import { readBody } from './body.js';
import { CostLimitedError } from '../auth/cost-budget.js';
import type { Exchange } from './exchange.js';
import { CACHE_NONE, CACHE_REVALIDATE } from './headers.js';
import type { ResponseCache } from './response-cache.js';
import type { Representations } from './compression.js';
import type { PersistedDocuments } from '../graphql/persisted-documents.js';
import type { Freshness } from '../rest/route.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-guard.js';
import { sendProblem } from './problem.js';
import type { StreamLimiter } from './streams.js';

type MakeContext = (ex: Exchange) => GraphQLContext;

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** What /graphql needs beyond the executor: the stores persisted documents and GET answers live in. */
export interface GraphQLHandlerDeps {
  persisted: PersistedDocuments;
  cache: ResponseCache;
  /** What a query document's answer depends on (graphql/freshness.ts). */
  freshnessOf: (document: DocumentNode) => Freshness;
  /** The data version of a freshness (part of a kept answer's key). */
  versionOf: (freshness: Freshness) => string;
}

/**
 * /graphql. JSON POSTs and GET queries, nearly all GraphQL traffic, take our own path: the
 * document named by the request (its text, an automatic persisted query's hash, or a trusted
 * document's id: graphql/persisted-documents.ts), then the one executor (graphql/executor.ts),
 * with no Fetch-API layer. A GET query's answer is a version of the data like a REST answer: kept
 * in the response cache by document, variables and data version, with a strong ETag (304 on
 * If-None-Match). Everything else (SSE and multipart streams, subscriptions, odd bodies) goes to
 * Yoga, loaded on first use, running the executor's plugin list; so limits, masking and codes are
 * the same on both. (The GraphiQL page is served by http/pages.ts.)
 */
export function createGraphQLHandler(schema: GraphQLSchema, executor: Executor, finalizeResult: FinalizeResult, services: Services, config: Config, makeContext: MakeContext, streams: StreamLimiter, deps: GraphQLHandlerDeps) {
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
    const ctx = plainContext(services, makeContext(ex));
    ctx.incremental = () => void (ex.incremental = true);
    await handler(ex, ctx);
  }

  async function post(ex: Exchange, body: Buffer): Promise<void> {
    let params: unknown;
    try {
      params = JSON.parse(body.toString('utf8'));
    } catch {
      return respond(ex, { errors: [new GraphQLError('POST body sent invalid JSON.', { extensions: { code: 'BAD_REQUEST' } })] }, 400);
    }
    if (!isPlainRequest(params)) return viaYoga(ex, body);
    return run(ex, params, body, null);
  }

  async function get(ex: Exchange): Promise<void> {
    const search = new URLSearchParams(ex.query);
    // Without a header a cross-site page cannot send (our key's, or Yoga's own), a GET could be a
    // forged <img> or form: refused, with AUTH=off too.
    const h = ex.req.headers;
    if (h['x-api-key'] === undefined && h.authorization === undefined && h['x-graphql-yoga-csrf'] === undefined) {
      return respond(ex, { errors: [new GraphQLError('A GET to /graphql must carry an x-api-key, authorization or x-graphql-yoga-csrf header (cross-site request forgery protection).', { extensions: { code: 'FORBIDDEN' } })] }, 403);
    }
    const params: PlainRequest = { query: search.get('query') ?? undefined, documentId: search.get('documentId') ?? undefined, operationName: search.get('operationName') };
    for (const name of ['variables', 'extensions'] as const) {
      const text = search.get(name);
      if (!text) continue;
      if (nestsDeeperThan(text)) return tooDeep(ex, name);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return respond(ex, { errors: [new GraphQLError(`The ${name} parameter is not valid JSON.`, { extensions: { code: 'BAD_REQUEST' } })] }, 400);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return respond(ex, { errors: [new GraphQLError(`The ${name} parameter must be a JSON object.`, { extensions: { code: 'BAD_REQUEST' } })] }, 400);
      }
      params[name] = value as Record<string, unknown>;
    }
    return run(ex, params, undefined, search.get('variables') ?? '');
  }

  /** One request's document found, prepared and run; `variablesText` is set for a GET (its answer may be kept). */
  async function run(ex: Exchange, params: PlainRequest, body: Buffer | undefined, variablesText: string | null): Promise<void> {
    const resolved = deps.persisted.resolve(params);
    if ('error' in resolved) {
      const code = resolved.error.extensions.code;
      return respond(ex, { errors: [resolved.error] }, code === 'PERSISTED_QUERY_NOT_FOUND' ? 200 : 400);
    }
    const ctx = makeContext(ex);
    const execution = executor.begin(ctx);
    const prepared = execution.prepare(resolved.query);
    if (prepared.errors) return respond(ex, { errors: prepared.errors }, 200, prepared.stage === 'parse' ? 'GRAPHQL_PARSE_FAILED' : undefined);
    resolved.store?.();
    const { document } = prepared;
    const operationName = params.operationName ?? undefined;
    const operation = getOperationAST(document, operationName);
    // Subscriptions stream: only Yoga's SSE and multipart processors serve those.
    if (operation?.operation === 'subscription') return viaYoga(ex, body);
    if (variablesText !== null && operation?.operation === 'mutation') {
      return respond(ex, { errors: [new GraphQLError('Can only perform a mutation operation from a POST request.', { extensions: { code: 'METHOD_NOT_ALLOWED' } })] }, 405, undefined, ['allow', 'POST']);
    }
    const freshness = variablesText === null ? 'none' : deps.freshnessOf(document);
    const key = freshness === 'none' ? null : `graphql\n${resolved.id()}\n${operationName ?? ''}\n${deps.versionOf(freshness)}\n${variablesText}`;
    const kept = key ? deps.cache.get(key) : undefined;
    if (kept) return sendKept(ex, key!, kept);
    const result = await execution.execute(document, params.variables, operationName);
    ex.cost = ctx.cost ?? 0;
    if (ex.answered) return;
    if (key && result.data && !result.errors) {
      // A version of the data: what the document, variables and data decide, nothing of this request.
      const answer = deps.cache.put(key, JSON.stringify({ data: result.data, extensions: { cost: { requestedQueryCost: ctx.cost ?? 0 } } }));
      return sendKept(ex, key, answer);
    }
    // Without data, the request itself was wrong (bad variables, over a limit).
    respond(ex, withCost(result, ctx), result.data === undefined ? 400 : 200, 'BAD_USER_INPUT');
  }

  async function sendKept(ex: Exchange, key: string, answer: Representations): Promise<void> {
    const held = answer.encodedBytes;
    const sending = ex.sendRepresentation(contentTypeFor(ex), answer, ['cache-control', CACHE_REVALIDATE]);
    if (sending) {
      await sending;
      if (answer.encodedBytes !== held) deps.cache.resized(key, answer);
    }
  }

  /**
   * The GraphQL-over-HTTP status rules, as Yoga applies them: a client accepting
   * application/graphql-response+json gets 400 for any request error; a plain application/json
   * client gets 200 for parse and validation errors (`jsonStatus`) and 400 for bad variables or JSON.
   */
  function respond(ex: Exchange, result: ExecutionResult, jsonStatus: number, codeForUncoded?: string, headers: readonly string[] = []): Promise<void> | void {
    const wantsGraphQLResponse = (ex.req.headers.accept ?? '').includes(GRAPHQL_RESPONSE);
    // Over the key's cost budget is 429 with its RateLimit headers, like any other rate limit.
    const limited = result.errors?.find((e): e is CostLimitedError => e instanceof CostLimitedError);
    const status = limited ? 429 : wantsGraphQLResponse && result.data === undefined && jsonStatus < 400 ? 400 : jsonStatus;
    const body = JSON.stringify(finalizeResult(result, ex.requestId, codeForUncoded));
    if (limited) ex.replaceHeaders(limited.headers);
    return ex.sendCompressible(status, contentTypeFor(ex), body, ['cache-control', CACHE_NONE, ...headers]);
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
        if (isFastPath(req, media)) return post(ex, body);
        return viaYoga(ex, body);
      }
      if (req.method === 'GET') {
        if (!wantsStream(req)) return get(ex);
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

/** The answer's media type: GraphQL's own when the client asks for it, else plain JSON. */
function contentTypeFor(ex: Exchange): string {
  return (ex.req.headers.accept ?? '').includes(GRAPHQL_RESPONSE) ? `${GRAPHQL_RESPONSE}; charset=utf-8` : 'application/json; charset=utf-8';
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
  query?: string;
  documentId?: string;
  extensions?: Record<string, unknown> | null;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

const isObjectOrNull = (v: unknown) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v));

/** A single JSON request we serve ourselves: its document by text, hash or id; anything odder is Yoga's to answer. */
function isPlainRequest(p: unknown): p is PlainRequest {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return false;
  const r = p as Record<string, unknown>;
  if (r.query !== undefined && typeof r.query !== 'string') return false;
  if (r.documentId !== undefined && typeof r.documentId !== 'string') return false;
  if (!isObjectOrNull(r.variables) || !isObjectOrNull(r.extensions)) return false;
  if (r.operationName !== undefined && r.operationName !== null && typeof r.operationName !== 'string') return false;
  return true;
}
