import { GraphQLError } from 'graphql';

/** One part of an incremental result (@defer, @stream), as @graphql-tools/executor yields them. */
export interface IncrementalPart {
  data?: unknown;
  errors?: readonly GraphQLError[];
  incremental?: { errors?: readonly GraphQLError[] }[];
  extensions?: Record<string, unknown>;
  hasNext: boolean;
}

export const DEFERRED_TIMEOUT_MESSAGE = 'The deferred parts took longer than the execution limit; they were not delivered.';

/**
 * The parts of an incremental result, ended when the request's signal aborts (its deadline passed,
 * which also aborts the work it started): the parts still to come are not waited for, and a last
 * part says why (code TIMEOUT). Provider calls end inside the deadline on their own (a deferred
 * part that waits on one gets UPSTREAM_FAILED); this bounds whatever else a part might wait on.
 */
export function cutAtDeadline(parts: AsyncIterable<IncrementalPart>, signal: AbortSignal | undefined): AsyncIterableIterator<IncrementalPart> {
  const iterator = parts[Symbol.asyncIterator]();
  const aborted = new Promise<'aborted'>((resolve) =>
    signal?.aborted ? resolve('aborted') : signal?.addEventListener('abort', () => resolve('aborted'), { once: true }),
  );
  let ended = false;
  const end = (): Promise<IteratorResult<IncrementalPart>> => {
    ended = true;
    return Promise.resolve(iterator.return?.()).then(() => ({ done: true, value: undefined }));
  };
  const out: AsyncIterableIterator<IncrementalPart> = {
    async next() {
      if (ended) return { done: true, value: undefined };
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted') {
        void end();
        const timeout = new GraphQLError(DEFERRED_TIMEOUT_MESSAGE, { extensions: { code: 'TIMEOUT' } });
        return { done: false, value: { incremental: [{ errors: [timeout] }], hasNext: false } };
      }
      if (next.done) ended = true;
      return next;
    },
    return: end,
    [Symbol.asyncIterator]: () => out,
  };
  return out;
}
