import type { ExecutionResult } from 'graphql';
import type { GraphQLContext, RequestInfo } from '../../graphql/context.js';
import type { Problem } from '../../lib/errors.js';
import { pullWhileTurnLasts } from '../../lib/turn.js';
import { TRANSPORTS } from '../../operation/operation.js';
import type { Pipeline } from '../../operation/pipeline.js';
import { outcomeOf, type CallOutcome } from './calls.js';
import { WATCH } from './resources.js';
import type { Identity } from '../../http/identity.js';

/** A session's watch over its subscribed resorts, until stopped. */
export interface Watch {
  stop(): void;
}

export interface WatchDeps {
  pipeline: Pipeline;
  newContext: (request: RequestInfo) => GraphQLContext;
  /** A session whose notification stream holds more unsent bytes than this is ended: it does not read. */
  maxBufferedBytes: number;
}

/** What a watch needs of its session: whose it is, where its notifications go, and what to tell. */
export interface Watcher {
  readonly id: string | undefined;
  readonly who: Identity;
  readonly notifications: { writableLength: number; writableNeedDrain: boolean } | null;
  changed(resortId: string): void;
  end(reason?: Problem): void;
}

type Update = ExecutionResult<{ conditionsChanged: { resortId: string; reason: string } }>;

const tooSlow = (max: number): Problem => ({
  status: 429,
  code: 'TOO_SLOW',
  detail: `The session's notification stream held more than ${max} unsent bytes: it was ended. Open a new session and subscribe again.`,
});

/**
 * Resource updates through the same live feed as conditionsChanged: a session's watched resorts
 * are one subscription through the pipeline (an operation of the server's own, with the session's
 * key), and each update after the first report tells the session which resort changed. Its parts
 * are pulled within the turn's budget for streamed work, as every stream's are.
 */
export function createWatcher(deps: WatchDeps) {
  return async (session: Watcher, ids: readonly string[]): Promise<Watch | CallOutcome> => {
    const abort = new AbortController();
    const { who } = session;
    const info: RequestInfo = {
      requestId: `${session.id}:watch`,
      signal: abort.signal,
      scopes: who.scopes,
      keyId: who.keyId,
      keyRate: who.keyRate,
      due: Number.POSITIVE_INFINITY,
    };
    const outcome = await deps.pipeline.run({ own: WATCH, variables: { ids }, crossSiteSafe: true }, TRANSPORTS.mcp, deps.newContext(info));
    if (outcome.kind !== 'stream') {
      abort.abort();
      return outcomeOf(outcome);
    }
    const iterator = outcome.parts[Symbol.asyncIterator]();
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      abort.abort();
      void iterator.return?.();
    };
    const pump = (): void => {
      iterator.next().then(
        (r) => {
          if (r.done || stopped) return;
          const part = r.value as Update;
          // The feed cut the subscription (its reader too slow, the server stopping): the session ends, its client opens another.
          if (part.errors?.length) return session.end();
          const update = part.data?.conditionsChanged;
          if (update && update.reason !== 'INITIAL') {
            // The SDK's stream writes only after a drain: a socket that has not drained holds the
            // rest in the SDK's queue, unbounded, so not draining is not reading.
            const stream = session.notifications;
            if (stream && (stream.writableNeedDrain || stream.writableLength > deps.maxBufferedBytes)) return session.end(tooSlow(deps.maxBufferedBytes));
            session.changed(update.resortId);
          }
          pullWhileTurnLasts(pump);
        },
        () => session.end(),
      );
    };
    pump();
    return { stop };
  };
}
