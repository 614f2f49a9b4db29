import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { GraphQLContext } from '../../graphql/context.js';
import { readBody } from '../../http/body.js';
import type { Exchange } from '../../http/exchange.js';
import { PERCENT_ENCODING, readQuery } from '../../http/query-string.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../http/json-guard.js';
import { sendProblem } from '../../http/problem.js';
import type { Problem } from '../../lib/errors.js';
import type { ResponseCache } from '../../http/response-cache.js';
import { answerHolder, isRefusal, type StreamLimiter } from '../../http/streams.js';
import { CACHE_NONE } from '../../http/headers.js';
import { TRANSPORTS, type OperationRequest, type Refused } from '../../operation/operation.js';
import type { Pipeline } from '../../operation/pipeline.js';
import { UNEXPECTED_RESULT } from '../../operation/steps/finalize.js';
import { contentTypeFor, refusalBody, sendAnswer } from './answer.js';
import { negotiate, writeStream, type Wanted } from './event-stream.js';

export interface GraphQLHttpDeps {
  pipeline: Pipeline;
  makeContext: (ex: Exchange) => GraphQLContext;
  cache: ResponseCache;
  streams: StreamLimiter;
  maxBodyBytes: number;
  /** Operations one batch may carry (GRAPHQL_BATCH_MAX). */
  maxBatch: number;
  /**
   * Checks and counts the request's key once more, for each operation of a batch after the first:
   * each is counted against the key's rate and quota as a request of its own.
   */
  recheck: (ex: Exchange) => Promise<Recheck> | Recheck;
  /** How often an SSE stream writes a heartbeat comment. */
  heartbeatMs: number;
}

/** A batch operation's key check: refused (why), or allowed, with the RateLimit headers describing the key after it. */
export type Recheck = { refused: Problem } | { refused: null; headers: readonly string[] };

/** The headers of a refusal that describe the key (a 429's RateLimit-*), not the refusal itself (Retry-After). */
const rateLimitHeadersOf = (problem: Problem): string[] => {
  const out: string[] = [];
  const h = problem.headers ?? [];
  for (let i = 0; i < h.length; i += 2) if (h[i]!.startsWith('ratelimit-')) out.push(h[i]!, h[i + 1]!);
  return out;
};

/** What POST /graphql reads: JSON (and its older GraphQL name), or a query as plain GraphQL text. */
const POST_MEDIA_TYPES = ['application/json', 'application/graphql+json', 'application/graphql'];

/** A request that could not be decoded into an operation: 400, in the shape of the pipeline's refusals. */
const requestError = (ex: Exchange, message: string): Refused => ({
  kind: 'refused',
  errors: [new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } })],
  status: 400,
  extensions: { requestId: ex.requestId },
});

/**
 * /graphql over HTTP, as an adapter onto the operation pipeline: it decodes a request (a JSON or
 * GraphQL body, a batch of JSON requests, or GET parameters) into the pipeline's input, and
 * encodes its outcome as one JSON answer, a kept answer with its ETag, or a stream (SSE or
 * multipart/mixed, as the client's Accept asks). It decides nothing about the operation itself.
 * (The GraphiQL page is served by http/pages.ts; the WebSocket by ./ws.ts.)
 */
export function createGraphQLHttp(deps: GraphQLHttpDeps) {
  const { pipeline, makeContext, cache, streams } = deps;

  /**
   * Runs one request and answers it: one result as the client prefers it (JSON, or a stream of one
   * part), a stream (a subscription, @defer / @stream) as the stream it reads. A stream counts
   * against its key's streams (and the server's) once it is known to be one.
   */
  async function answer(ex: Exchange, request: OperationRequest, wanted: Wanted): Promise<void> {
    const ctx = makeContext(ex);
    let outcome = pipeline.run(request, wanted.stream ? TRANSPORTS[wanted.stream] : TRANSPORTS.json, ctx);
    if (outcome instanceof Promise) outcome = await outcome;
    ex.cost = ctx.cost ?? 0;
    if (outcome.kind === 'stream') {
      const stop = () => void outcome.parts[Symbol.asyncIterator]().return?.();
      // The deadline answered first: the stream that was about to start is stopped.
      if (ex.answered) return stop();
      let endWith!: (reason: Problem) => void;
      const ended = new Promise<Problem>((resolve) => (endWith = resolve));
      const admitted = streams.admit(answerHolder(ex, endWith));
      if (isRefusal(admitted)) {
        stop();
        return sendProblem(ex, admitted);
      }
      ex.res.once('close', admitted.release);
      // The parts of a deferred answer still to come are cut at the deadline; a subscription is not.
      if (outcome.incremental) ex.incremental = true;
      return writeStream(ex, wanted.stream!, outcome.parts, {
        heartbeatMs: deps.heartbeatMs,
        subscription: !outcome.incremental,
        onError: (err) => streamFailed(ctx, err),
        ended,
      });
    }
    if (ex.answered) return;
    if (outcome.kind === 'result' && wanted.single !== 'json' && outcome.result.data !== undefined) {
      return writeStream(ex, wanted.single, oneResult(outcome.result), { heartbeatMs: deps.heartbeatMs, onError: (err) => streamFailed(ctx, err) });
    }
    return sendAnswer(ex, outcome, cache);
  }

  async function post(ex: Exchange, wanted: Wanted): Promise<void> {
    const media = mediaTypeOf(ex.req);
    if (!POST_MEDIA_TYPES.includes(media)) return unsupportedMediaType(ex, media);
    const body = await readBody(ex.req, deps.maxBodyBytes);
    // Decoding would make each bad byte U+FFFD: a search for another word, not the client's mistake told.
    if (!isUtf8(body)) return sendAnswer(ex, requestError(ex, 'POST body is not valid UTF-8.'), cache);
    if (media === 'application/graphql') return answer(ex, { query: body.toString('utf8') }, wanted);
    if (nestsDeeperThan(body)) return tooDeep(ex, 'body');
    let params: unknown;
    try {
      params = JSON.parse(body.toString('utf8'));
    } catch {
      return sendAnswer(ex, requestError(ex, 'POST body sent invalid JSON.'), cache);
    }
    if (Array.isArray(params)) return batch(ex, params);
    if (typeof params !== 'object' || params === null)
      return sendAnswer(ex, requestError(ex, 'POST body must be a JSON object (one operation) or an array of them (a batch).'), cache);
    return answer(ex, pick(params as Record<string, unknown>), wanted);
  }

  function get(ex: Exchange, wanted: Wanted): Promise<void> | void {
    const read = readQuery(ex.query);
    if (!read.ok) return sendAnswer(ex, requestError(ex, `The ${read.name} parameter is not ${PERCENT_ENCODING}.`), cache);
    const search = read.params;
    const h = ex.req.headers;
    const request: OperationRequest = {
      query: search.get('query') ?? undefined,
      documentId: search.get('documentId') ?? undefined,
      operationName: search.get('operationName'),
      overGet: true,
      crossSiteSafe: h['x-api-key'] !== undefined || h.authorization !== undefined || h['x-graphql-yoga-csrf'] !== undefined,
    };
    for (const name of ['variables', 'extensions'] as const) {
      const text = search.get(name);
      if (!text) continue;
      if (nestsDeeperThan(text)) return tooDeep(ex, name);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return sendAnswer(ex, requestError(ex, `The ${name} parameter is not valid JSON.`), cache);
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return sendAnswer(ex, requestError(ex, `The ${name} parameter must be a JSON object.`), cache);
      request[name] = value;
    }
    // A GET's answer is a version of the data: kept by document, variables and data version.
    if (wanted.single === 'json') request.keep = { key: `graphql\n${search.get('variables') ?? ''}`, serialize: keptBody };
    return answer(ex, request, wanted);
  }

  /**
   * A batch (Apollo's BatchHttpLink): an array of operations in one POST, answered as an array in
   * the same order. Each is one operation through the pipeline as if sent alone (its key counted,
   * its cost charged, every rule checked); streams are not batched (each is answered whole).
   */
  async function batch(ex: Exchange, items: unknown[]): Promise<void> {
    if (items.length === 0 || items.length > deps.maxBatch) {
      const bound = `1 to ${deps.maxBatch} operations`;
      return sendProblem(ex, {
        status: 400,
        code: 'BAD_REQUEST',
        detail: `A batch carries ${bound} (GRAPHQL_BATCH_MAX); this one has ${items.length}.`,
        errors: [{ name: 'batch', value: items.length, bound, message: `batch must carry ${bound}` }],
      });
    }
    let cost = 0;
    // The answer's RateLimit headers describe the key after the last operation's check (the
    // request's own check, in them already, was the first's).
    let last: { index: number; headers: readonly string[] } = { index: 0, headers: [] };
    const answers = await Promise.all(
      items.map(async (item, i): Promise<unknown> => {
        if (i > 0) {
          const check = await deps.recheck(ex);
          const headers = check.refused ? rateLimitHeadersOf(check.refused) : check.headers;
          if (i > last.index) last = { index: i, headers };
          if (check.refused) return { errors: [{ message: check.refused.detail, extensions: { code: check.refused.code } }] };
        }
        if (typeof item !== 'object' || item === null || Array.isArray(item))
          return { errors: [{ message: 'Each operation of a batch must be a JSON object.', extensions: { code: 'BAD_REQUEST' } }] };
        const ctx = makeContext(ex);
        const outcome = await pipeline.run(pick(item as Record<string, unknown>), TRANSPORTS.batch, ctx);
        cost += ctx.cost ?? 0;
        return outcome.kind === 'refused' ? refusalBody(outcome) : outcome.kind === 'result' ? outcome.result : null;
      }),
    );
    ex.cost = cost;
    if (last.headers.length > 0) ex.replaceHeaders(last.headers);
    if (!ex.answered) return ex.sendCompressible(200, contentTypeFor(ex), JSON.stringify(answers), ['cache-control', CACHE_NONE]);
  }

  return {
    handle(ex: Exchange): Promise<void> | void {
      const { req } = ex;
      const wanted = negotiate(req.headers.accept);
      if (req.method === 'POST') return post(ex, wanted);
      if (req.method === 'GET') return get(ex, wanted);
      sendProblem(ex, {
        status: 405,
        code: 'METHOD_NOT_ALLOWED',
        detail: `${req.method} is not allowed on /graphql; use GET or POST.`,
        headers: ['allow', 'GET, POST'],
      });
    },
  };
}

/** A kept GraphQL answer: what the document, variables and data decide, nothing of one request (its id rides in a header). */
const keptBody = (data: unknown, cost: number) => JSON.stringify({ data, extensions: { cost: { requestedQueryCost: cost } } });

/** The GraphQL-over-HTTP request parameters of a JSON body (anything else in it is ignored). */
function pick(p: Record<string, unknown>): OperationRequest {
  return { query: p.query, documentId: p.documentId, operationName: p.operationName, variables: p.variables, extensions: p.extensions };
}

async function* oneResult(result: unknown): AsyncGenerator<unknown> {
  yield result;
}

function streamFailed(ctx: GraphQLContext, err: unknown): unknown {
  ctx.logger.error({ err }, 'a stream failed');
  return UNEXPECTED_RESULT;
}

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
  sendProblem(ex, {
    status: 400,
    code: 'BAD_REQUEST',
    detail: `The request's ${name} nests deeper than ${MAX_JSON_DEPTH} levels.`,
    errors: [{ name, bound, message: `${name} must be ${bound}` }],
  });
}
