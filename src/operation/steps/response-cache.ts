import type { DocumentNode } from 'graphql';
import type { Freshness } from '../../data-version.js';
import type { KeptAnswer, Outcome, Step } from '../operation.js';

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
}

/**
 * Answers as versions of the data: a request its transport says may be kept (a GET) whose document
 * depends on nothing that changes between two requests (freshness.ts) is answered from the cache
 * when the same document, variables and data version were answered before; else, once executed
 * without errors, its answer is serialized once (by the transport: a REST body or a GraphQL one)
 * and kept. A new data version stops matching the old keys, which age out. Before the cost steps:
 * a kept answer costs its key's budget nothing (its usage was counted by the key check).
 */
export function responseCacheStep({ cache, freshnessOf, versionOf }: ResponseCacheDeps): Step {
  return {
    name: 'response-cache',
    run(op) {
      const keep = op.request.keep;
      if (!keep) return undefined;
      const freshness = freshnessOf(op.document!);
      if (freshness === 'none') return undefined;
      const key = `${keep.key}\n${op.source!.id()}\n${op.operationName ?? ''}\n${versionOf(freshness)}`;
      op.cacheKey = key;
      const answer = cache.get(key);
      return answer ? { kind: 'kept', key, answer } : undefined;
    },
    done(op, outcome): Outcome {
      const key = op.cacheKey;
      if (key === undefined || outcome.kind !== 'result' || outcome.result.errors || !outcome.result.data) return outcome;
      return { kind: 'kept', key, answer: cache.put(key, op.request.keep!.serialize(outcome.result.data, op.context.cost ?? 0)) };
    },
  };
}
