import { GraphQLError } from 'graphql';

/** One part of an incremental result, as Yoga's engine yields them. */
export interface IncrementalPart {
  data?: unknown;
  errors?: readonly GraphQLError[];
  incremental?: { errors?: readonly GraphQLError[] }[];
  hasNext: boolean;
}

/**
 * The parts of an incremental result, masked (errors in the first part and in each deferred
 * piece), and ended when the request's signal aborts (its deadline passed, which also aborts the
 * work it started): the parts still to come are not waited for, and a last part says why (code
 * TIMEOUT). Provider calls end inside the deadline on their own (a deferred part that waits on
 * one gets UPSTREAM_FAILED); this bounds whatever else a part might wait on.
 */
export async function* cutAtDeadline(parts: AsyncIterable<IncrementalPart>, signal: AbortSignal | undefined, mask: <R extends { errors?: readonly GraphQLError[] }>(result: R) => R): AsyncGenerator<IncrementalPart> {
  const iterator = parts[Symbol.asyncIterator]();
  const aborted = new Promise<'aborted'>((resolve) => (signal?.aborted ? resolve('aborted') : signal?.addEventListener('abort', () => resolve('aborted'), { once: true })));
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === 'aborted') {
        const timeout = new GraphQLError(DEFERRED_TIMEOUT_MESSAGE, { extensions: { code: 'TIMEOUT' } });
        yield { incremental: [{ errors: [timeout] }], hasNext: false };
        return;
      }
      if (next.done) return;
      const part = mask(next.value);
      yield part.incremental ? { ...part, incremental: part.incremental.map((piece) => mask(piece)) } : part;
    }
  } finally {
    void iterator.return?.();
  }
}

export const DEFERRED_TIMEOUT_MESSAGE = 'The deferred parts took longer than the execution limit; they were not delivered.';
