import type { ExecutionResult } from 'graphql';
import type { Outcome, Refused } from '../../operation/operation.js';
import type { Representations } from '../../http/compression.js';
import type { Exchange } from '../../http/exchange.js';
import { CACHE_NONE } from '../../http/headers.js';
import type { ResponseCache } from '../../http/response-cache.js';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';
// Media types are case-insensitive (RFC 9110).
const NAMES_GRAPHQL_RESPONSE = /application\/graphql-response\+json/i;
const NAMES_JSON = /application\/json|\*\/\*/i;

/** Whether the client reads GraphQL over HTTP's own media type (then request errors are 400s). */
export function wantsGraphQLResponse(ex: Exchange): boolean {
  return NAMES_GRAPHQL_RESPONSE.test(ex.req.headers.accept ?? '');
}

/** Whether the client reads application/json (or says nothing, or anything). */
function acceptsJson(ex: Exchange): boolean {
  const accept = ex.req.headers.accept;
  return accept === undefined || NAMES_JSON.test(accept);
}

/** The answer's media type: GraphQL's own when the client asks for it, else plain JSON. */
export function contentTypeFor(ex: Exchange): string {
  return wantsGraphQLResponse(ex) ? `${GRAPHQL_RESPONSE}; charset=utf-8` : 'application/json; charset=utf-8';
}

/** A refusal as the JSON a GraphQL client reads: its errors and extensions (cost, requestId). */
export function refusalBody(outcome: Refused): ExecutionResult {
  return { errors: outcome.errors, ...(outcome.extensions ? { extensions: outcome.extensions } : {}) };
}

/**
 * An outcome that is one JSON answer, with GraphQL over HTTP's status rules: a refusal has its
 * status (a request error is 200 to a plain application/json client and 400 to one of
 * application/graphql-response+json, or to one that reads only streams; 405, 403, 406 and 429 to
 * all), an executed result is 200, or a 4xx when it has no data (its variables did not coerce:
 * 400; a subscription refused at its start: its error's status); a kept answer is revalidated by
 * its ETag.
 */
export function sendAnswer(
  ex: Exchange,
  outcome: Outcome & { kind: 'refused' | 'result' | 'kept' },
  cache: Pick<ResponseCache, 'resized'>,
): Promise<void> | void {
  if (outcome.kind === 'kept') return sendKept(ex, outcome, cache, contentTypeFor(ex));
  if (outcome.kind === 'result') {
    const status = outcome.result.data === undefined ? requestErrorStatus(outcome.result.errors) : 200;
    return ex.sendCompressible(status, contentTypeFor(ex), JSON.stringify(outcome.result), ['cache-control', CACHE_NONE]);
  }
  // The 200 of a request error is for plain JSON clients; one that reads only streams gets the 400.
  const status = wantsGraphQLResponse(ex) || !acceptsJson(ex) ? outcome.status : (outcome.jsonStatus ?? outcome.status);
  // Over the key's cost budget is 429 with its own RateLimit headers, in place of the key check's.
  if (outcome.status === 429 && outcome.headers) ex.replaceHeaders(outcome.headers);
  const headers = outcome.status === 429 || !outcome.headers ? ['cache-control', CACHE_NONE] : ['cache-control', CACHE_NONE, ...outcome.headers];
  return ex.sendCompressible(status, contentTypeFor(ex), JSON.stringify(refusalBody(outcome)), headers);
}

/**
 * A result without data is a request error: 400, or the 4xx our error names (a subscription
 * refused at its start: NOT_FOUND is 404, FORBIDDEN 403).
 */
function requestErrorStatus(errors: readonly { extensions?: Record<string, unknown> }[] | undefined): number {
  const status = errors?.[0]?.extensions?.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 400;
}

/**
 * A kept answer (the response cache's: a REST body or a GraphQL one): 304 on If-None-Match, else
 * compressed once per representation, the cache told what a new representation holds.
 */
export function sendKept(
  ex: Exchange,
  kept: Outcome & { kind: 'kept' },
  cache: Pick<ResponseCache, 'resized'>,
  contentType: string,
  headers: readonly string[] = [],
): Promise<void> | void {
  const answer = kept.answer as Representations;
  const key = kept.key;
  const held = answer.encodedBytes;
  // Most kept answers go out at once, as they are: no promise.
  const sending = ex.sendRepresentation(contentType, answer, ['cache-control', kept.cacheControl, ...headers]);
  if (sending !== undefined) return sending.then(() => void (answer.encodedBytes !== held && cache.resized(key, answer)));
}
