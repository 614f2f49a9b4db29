import type { DocumentNode } from 'graphql';
import type { Freshness } from '../../data/data-version.js';
import type { KeptAnswer, OperationRequest, Outcome, Step } from '../operation.js';

/** Where kept answers live (http/response-cache.ts: bounded in bytes, with their compressed forms). */
export interface AnswerStore {
  get(key: string): KeptAnswer | undefined;
  /** The serialized answer as kept (or not, if the store declines it), ready to send. */
  put(key: string, body: string): KeptAnswer;
}

export interface ResponseCacheDeps {
  cache: AnswerStore;
  /** What a document's answer depends on (freshness.ts). */
  freshnessOf: (document: DocumentNode) => Freshness;
  /** The version of that data now (data-version.ts). */
  versionOf: (freshness: Freshness) => string;
  /** How long a client may keep an answer of that data (data-version.ts). */
  cacheControlOf: (freshness: Freshness) => string;
}

/**
 * Answers as versions of the data: a request its transport says may be kept (a GET) whose document
 * depends on nothing that changes between two requests (freshness.ts) is answered from the cache
 * when the same document, variables and data version were answered before; else, once executed
 * without errors, its answer is serialized once (by the transport: a REST body or a GraphQL one)
 * and kept. A new data version stops matching the old keys, which age out. Before the cost steps:
 * a kept answer costs its key's budget nothing (its usage was counted by the key check).
 */
export function responseCacheStep({
  cache,
  freshnessOf,
  versionOf,
  cacheControlOf,
}: ResponseCacheDeps): Step & { lookupOwn(request: OperationRequest): Outcome | undefined } {
  /** The key of a kept answer: the transport's, the document, the operation, and the data version now. */
  const keyOf = (keep: string, document: DocumentNode, documentId: string, operationName: string | undefined): string | undefined => {
    const freshness = freshnessOf(document);
    return freshness === 'none' ? undefined : `${keep}\n${documentId}\n${operationName ?? ''}\n${versionOf(freshness)}`;
  };
  const lookup = (key: string | undefined, document: DocumentNode): Outcome | undefined => {
    if (key === undefined) return undefined;
    const answer = cache.get(key);
    return answer ? { kind: 'kept', key, answer, cacheControl: cacheControlOf(freshnessOf(document)) } : undefined;
  };
  return {
    name: 'response-cache',
    run(op) {
      const keep = op.request.keep;
      if (!keep) return undefined;
      // Asked already (lookupOwn, a miss): the key is kept for the store.
      if (op.request.missedKey !== undefined) {
        op.cacheKey = op.request.missedKey;
        return undefined;
      }
      op.cacheKey = keyOf(keep.key, op.document!, op.source!.id(), op.operationName);
      return lookup(op.cacheKey, op.document!);
    },
    /**
     * The same lookup for a document of the server's own (a REST route's GET), which passes every
     * step before this one by construction: its transport may ask here first and skip the rest
     * of the list for a kept answer.
     */
    lookupOwn(request) {
      if (!request.own || !request.keep || request.operationName !== undefined) return undefined;
      const key = keyOf(request.keep.key, request.own, '', undefined);
      const found = lookup(key, request.own);
      if (!found && key !== undefined) request.missedKey = key;
      return found;
    },
    done(op, outcome): Outcome {
      const key = op.cacheKey;
      if (key === undefined || outcome.kind !== 'result' || outcome.result.errors || !outcome.result.data) return outcome;
      const answer = cache.put(key, op.request.keep!.serialize(outcome.result.data, op.context.cost ?? 0));
      return { kind: 'kept', key, answer, cacheControl: cacheControlOf(freshnessOf(op.document!)) };
    },
  };
}
