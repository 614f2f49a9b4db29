/*
 * Streams of parts as small classes, not objects of closures: a live subscription's stream waits
 * for its next part for hours, through every layer, and each layer's next() runs for every update
 * of every subscriber. A class's methods are shared, and its one handler is made once per stream,
 * not once per part.
 */

/** The end of a stream, one object for all. */
export const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * A stream of parts mapped one by one. Not an async generator: a generator's `return()` waits for
 * the `next()` it is suspended in (a subscription's next event may never come), while this one
 * hands `return()` to the source at once, so a client that goes away stops the source now.
 */
class MappedParts<T, U> implements AsyncIterableIterator<U> {
  private readonly source: AsyncIterator<T>;
  private readonly mapped: (r: IteratorResult<T>) => IteratorResult<U>;

  constructor(source: AsyncIterable<T>, map: (part: T) => U) {
    this.source = source[Symbol.asyncIterator]();
    // A part the map leaves as it is (most of a subscription's) keeps its result object too.
    this.mapped = (r) => {
      if (r.done) return DONE;
      const value = map(r.value);
      return (value as unknown) === r.value ? (r as unknown as IteratorResult<U>) : { done: false, value };
    };
  }

  next(): Promise<IteratorResult<U>> {
    return this.source.next().then(this.mapped);
  }

  return(): Promise<IteratorResult<U>> {
    return Promise.resolve(this.source.return?.()).then(() => DONE);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<U> {
    return this;
  }
}

export function mapParts<T, U>(source: AsyncIterable<T>, map: (part: T) => U): AsyncIterableIterator<U> {
  return new MappedParts(source, map);
}
