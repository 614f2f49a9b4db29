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
