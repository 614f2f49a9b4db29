import { GraphQLError, type ExecutionResult } from 'graphql';

/**
 * A stream of parts mapped one by one. Not an async generator: a generator's `return()` waits for
 * the `next()` it is suspended in (a subscription's next event may never come), while this one
 * hands `return()` to the source at once, so a client that goes away stops the source now.
 */
export function mapParts<T, U>(source: AsyncIterable<T>, map: (part: T) => U): AsyncIterableIterator<U> {
  const iterator = source[Symbol.asyncIterator]();
  const out: AsyncIterableIterator<U> = {
    next: () => iterator.next().then((r) => (r.done ? { done: true, value: undefined } : { done: false, value: map(r.value) })),
    return: () => Promise.resolve(iterator.return?.()).then(() => ({ done: true, value: undefined })),
    [Symbol.asyncIterator]: () => out,
  };
  return out;
}

/**
 * A subscription's stream whose source may fail (a live feed cutting a slow reader): the failure
 * becomes its last part, an error result (masked by finalize unless it is one of ours), and the
 * stream ends, on every transport alike, instead of breaking the connection it runs on.
 */
export function endingOnError(source: AsyncIterable<ExecutionResult>): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let failed = false;
  const out: AsyncIterableIterator<ExecutionResult> = {
    next: () =>
      failed
        ? Promise.resolve({ done: true, value: undefined })
        : iterator.next().then(
            (r) => r,
            (err: unknown) => {
              failed = true;
              const error = err instanceof GraphQLError ? err : new GraphQLError('a subscription failed', { originalError: err as Error });
              return { done: false, value: { errors: [error] } };
            },
          ),
    return: () => Promise.resolve(iterator.return?.()).then(() => ({ done: true, value: undefined })),
    [Symbol.asyncIterator]: () => out,
  };
  return out;
}
