import { describe, expect, it } from 'vitest';
import {
  GraphQLError,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  type ExecutionResult,
  type OperationDefinitionNode,
} from 'graphql';
import { subscribeShared } from '../../src/operation/shared-events.js';
import { SHARED_EVENTS } from '../../src/graphql/field-extensions.js';

/**
 * Who shares an event's execution, as subscribers come and go (operation/shared-events.ts): a
 * group is kept only while it has more than one member, members leave when their stream is
 * returned, its source ends or fails; operations, fragments and a document's group bound decide
 * the groups. Each source here is the test's own: events, its end and its failure are pushed.
 */

interface Tick {
  n: number;
}

type Item = { event: unknown } | { end: true } | { fail: unknown };

/** One subscriber's event source: what is pushed, in order. */
class Source implements AsyncIterableIterator<unknown> {
  private readonly items: Item[] = [];
  private wake: (() => void) | null = null;
  returned = false;

  push(item: Item): void {
    this.items.push(item);
    this.wake?.();
  }

  async next(): Promise<IteratorResult<unknown>> {
    while (this.items.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    const item = this.items.shift()!;
    if ('end' in item) return { done: true, value: undefined };
    if ('fail' in item) throw item.fail;
    return { done: false, value: item.event };
  }

  async return(): Promise<IteratorResult<unknown>> {
    this.returned = true;
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

function world() {
  const calls = { n: 0, label: 0, count: 0, slow: 0 };
  /** A resolver that counts its calls. */
  const counted =
    <A extends unknown[], R>(name: keyof typeof calls, fn: (...args: A) => R) =>
    (...args: A): R => {
      calls[name]++;
      return fn(...args);
    };
  const sources: Source[] = [];
  const subscribe = () => {
    const source = new Source();
    sources.push(source);
    return source;
  };
  const TickType = new GraphQLObjectType<Tick>({
    name: 'Tick',
    fields: {
      n: { type: GraphQLInt, resolve: counted('n', (t: Tick) => t.n) },
      label: {
        type: GraphQLString,
        args: { prefix: { type: GraphQLString } },
        resolve: counted('label', (t: Tick, { prefix }: { prefix?: string | null }) => `${prefix ?? ''}${t.n}`),
      },
      slow: { type: GraphQLInt, resolve: counted('slow', async (t: Tick) => t.n) },
    },
  });
  const shared = { extensions: { [SHARED_EVENTS]: true } };
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt, resolve: () => 1 } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        ticks: { type: TickType, args: { ids: { type: new GraphQLList(GraphQLID) } }, subscribe, resolve: (t) => t, ...shared },
        count: { type: GraphQLInt, subscribe, resolve: counted('count', (e: unknown) => e), ...shared },
        broken: {
          type: GraphQLInt,
          subscribe: () => {
            throw new GraphQLError('no source', { extensions: { code: 'NOT_FOUND' } });
          },
          ...shared,
        },
      },
    }),
  });
  /** Every live source gets the same item (the same event object). */
  const emit = (event: unknown) => {
    for (const s of sources) if (!s.returned) s.push({ event });
  };
  // One document per text, as the parse step hands them out: groups are per document.
  const parsed = new Map<string, ReturnType<typeof parse>>();
  const join = async (text: string | ReturnType<typeof parse>, variables: Record<string, unknown> = {}, operationName?: string) => {
    if (typeof text === 'string' && !parsed.has(text)) parsed.set(text, parse(text));
    const document = typeof text === 'string' ? parsed.get(text)! : text;
    const definition = document.definitions.find(
      (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition' && (operationName === undefined || d.name?.value === operationName),
    )!;
    const before = sources.length;
    const stream = (await subscribeShared(
      { schema, document, variableValues: variables, operationName },
      definition,
    )) as AsyncIterableIterator<ExecutionResult>;
    return { stream, source: sources[before] };
  };
  return { schema, calls, emit, join };
}

const values = async (streams: AsyncIterator<ExecutionResult>[]) => (await Promise.all(streams.map((s) => s.next()))).map((r) => r.value as ExecutionResult);

describe('shared events: groups as subscribers come and go', () => {
  const TICKS = 'subscription S { ticks { n } }';

  it('one subscriber alone executes each event itself (a group of one keeps nothing)', async () => {
    const w = world();
    const { stream } = await w.join(TICKS);
    const event = { n: 1 };
    w.emit(event);
    w.emit(event);
    expect(await values([stream, stream])).toEqual([{ data: { ticks: { n: 1 } } }, { data: { ticks: { n: 1 } } }]);
    expect(w.calls.n).toBe(2);
  });

  it('a subscriber who returns leaves its group once, however often it returns; the rest share until one is left', async () => {
    const w = world();
    const [a, b, c] = await Promise.all([w.join(TICKS), w.join(TICKS), w.join(TICKS)]);
    expect(await a!.stream.return!()).toEqual({ done: true, value: undefined });
    expect(await a!.stream.return!()).toEqual({ done: true, value: undefined });
    expect(a!.source!.returned).toBe(true);
    const first = { n: 1 };
    w.emit(first);
    const [rb, rc] = await values([b!.stream, c!.stream]);
    expect(rb).toEqual({ data: { ticks: { n: 1 } } });
    expect(rc).toBe(rb);
    expect(w.calls.n).toBe(1);
    await b!.stream.return!();
    const second = { n: 2 };
    w.emit(second);
    w.emit(second);
    await values([c!.stream, c!.stream]);
    expect(w.calls.n).toBe(3);
  });

  it('a source that ends ends its stream, and its subscriber leaves the group', async () => {
    const w = world();
    const [a, b] = await Promise.all([w.join(TICKS), w.join(TICKS)]);
    a!.source!.push({ end: true });
    expect(await a!.stream.next()).toEqual({ done: true, value: undefined });
    const event = { n: 4 };
    b!.source!.push({ event });
    b!.source!.push({ event });
    await values([b!.stream, b!.stream]);
    expect(w.calls.n).toBe(2);
  });

  it('a source that fails gives its failure as the last part (ours as it is, any other wrapped), then the stream ends and leaves the group', async () => {
    const w = world();
    const [a, b, c] = await Promise.all([w.join(TICKS), w.join(TICKS), w.join(TICKS)]);
    const boom = new Error('boom');
    a!.source!.push({ fail: boom });
    const [failed] = await values([a!.stream]);
    expect(failed!.errors).toHaveLength(1);
    expect(failed!.errors![0]).toBeInstanceOf(GraphQLError);
    expect(failed!.errors![0]!.message).toBe('a subscription failed');
    expect(failed!.errors![0]!.originalError).toBe(boom);
    expect(Object.keys(failed!)).toEqual(['errors']);
    expect(await a!.stream.next()).toEqual({ done: true, value: undefined });
    const ours = new GraphQLError('too slow', { extensions: { code: 'TOO_SLOW' } });
    b!.source!.push({ fail: ours });
    expect(await b!.stream.next()).toEqual({ done: false, value: { errors: [ours] } });
    expect((await values([b!.stream]))[0]).toBeUndefined();
    // c is alone now: each event executed for itself.
    const event = { n: 5 };
    c!.source!.push({ event });
    c!.source!.push({ event });
    await values([c!.stream, c!.stream]);
    expect(w.calls.n).toBe(2);
  });

  it('an event that is not an object is executed for each subscriber', async () => {
    const w = world();
    const streams = (await Promise.all([w.join('subscription { count }'), w.join('subscription { count }')])).map((j) => j.stream);
    w.emit(5);
    expect(await values(streams)).toEqual([{ data: { count: 5 } }, { data: { count: 5 } }]);
    expect(w.calls.count).toBe(2);
    // null is no object to keep a result by either.
    w.emit(null);
    expect(await values(streams)).toEqual([{ data: { count: null } }, { data: { count: null } }]);
    expect(w.calls.count).toBe(4);
  });

  it('a selection that waits is awaited, once for the group', async () => {
    const w = world();
    const streams = (await Promise.all([w.join('subscription { ticks { slow } }'), w.join('subscription { ticks { slow } }')])).map((j) => j.stream);
    w.emit({ n: 9 });
    const [first, second] = await Promise.all(streams.map((st) => st.next()));
    expect(first).toEqual({ done: false, value: { data: { ticks: { slow: 9 } } } });
    expect(second!.done).toBe(false);
    const [ra, rb] = [first!.value, second!.value];
    expect(ra).toEqual({ data: { ticks: { slow: 9 } } });
    expect(rb).toBe(ra);
    expect(w.calls.slow).toBe(1);
  });

  it('the operations of one document are grouped apart', async () => {
    const w = world();
    const document = parse('subscription A { ticks { n } } subscription B { ticks { label } }');
    const a = (await Promise.all([w.join(document, {}, 'A'), w.join(document, {}, 'A')])).map((j) => j.stream);
    const b = (await Promise.all([w.join(document, {}, 'B'), w.join(document, {}, 'B')])).map((j) => j.stream);
    w.emit({ n: 3 });
    expect(await values([...a, ...b])).toEqual([
      { data: { ticks: { n: 3 } } },
      { data: { ticks: { n: 3 } } },
      { data: { ticks: { label: '3' } } },
      { data: { ticks: { label: '3' } } },
    ]);
    expect([w.calls.n, w.calls.label]).toEqual([1, 1]);
  });

  it('a root that is not one field (a fragment spread, two fields) is executed for each subscriber', async () => {
    for (const text of [
      'subscription S { ...F } fragment F on Subscription { ticks { n } }',
      // A spread named like the shared field is still a spread.
      'subscription S { ...ticks } fragment ticks on Subscription { ticks { n } }',
      'subscription S { ticks { n } count }',
    ]) {
      const w = world();
      const streams = (await Promise.all([w.join(text), w.join(text)])).map((j) => j.stream);
      w.emit({ n: 2 });
      const [ra, rb] = await values(streams);
      expect(ra).toEqual(rb);
      expect(ra).not.toBe(rb);
      expect(w.calls.n).toBe(2);
    }
  });

  it('a stream in no group ends, fails and is returned like the others', async () => {
    const w = world();
    const text = 'subscription S { ...F } fragment F on Subscription { ticks { n } }';
    const [a, b, c] = await Promise.all([w.join(text), w.join(text), w.join(text)]);
    a!.source!.push({ end: true });
    expect(await a!.stream.next()).toEqual({ done: true, value: undefined });
    b!.source!.push({ fail: new Error('gone') });
    expect((await b!.stream.next()).value).toMatchObject({ errors: [{ message: 'a subscription failed' }] });
    expect(await b!.stream.next()).toEqual({ done: true, value: undefined });
    expect(await c!.stream.return!()).toEqual({ done: true, value: undefined });
    expect(c!.source!.returned).toBe(true);
  });

  it("the root field's directives may use variables (a subscriber's root is always included)", async () => {
    const w = world();
    const document = parse('subscription S($on: Boolean!) { ticks @include(if: $on) { n } }');
    const streams = (await Promise.all([w.join(document, { on: true }), w.join(document, { on: true })])).map((j) => j.stream);
    w.emit({ n: 6 });
    const [ra, rb] = await values(streams);
    expect(ra).toEqual({ data: { ticks: { n: 6 } } });
    expect(rb).toBe(ra);
  });

  it("variables used in the document's fragments make groups of their own", async () => {
    const w = world();
    const document = parse('subscription S($p: String) { ticks { ...F } } fragment F on Tick { label(prefix: $p) }');
    const streams = [];
    for (const p of ['a-', 'a-', 'b-']) streams.push((await w.join(document, { p })).stream);
    w.emit({ n: 1 });
    expect((await values(streams)).map((r) => (r.data as { ticks: { label: string } }).ticks.label)).toEqual(['a-1', 'a-1', 'b-1']);
    expect(w.calls.label).toBe(2);
  });

  it('past 256 groups in a document, a new group is not made: its subscribers execute their own', async () => {
    const w = world();
    const document = parse('subscription S($p: String) { ticks { label(prefix: $p) } }');
    const streams = [];
    for (let i = 0; i < 256; i++) streams.push((await w.join(document, { p: `g${i}-` })).stream);
    for (let i = 0; i < 2; i++) streams.push((await w.join(document, { p: 'new-' })).stream);
    w.emit({ n: 1 });
    const results = await values(streams);
    expect(results.at(-1)).toEqual({ data: { ticks: { label: 'new-1' } } });
    expect(results.at(-2)).not.toBe(results.at(-1));
    expect(w.calls.label).toBe(258);
  });

  it('a subscription whose source cannot be made answers its errors, not a stream', async () => {
    const w = world();
    const { stream } = await w.join('subscription { broken }');
    expect(Symbol.asyncIterator in stream).toBe(false);
    expect(stream as unknown as ExecutionResult).toEqual({ errors: [expect.objectContaining({ message: 'no source' })] });
  });
});
