import { describe, expect, it } from 'vitest';
import { GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionResult } from 'graphql';
import { subscribeShared } from '../../src/operation/shared-events.js';
import { SHARED_EVENTS } from '../../src/graphql/field-extensions.js';

/**
 * Subscribers of a field that shares its events get one execution per event for each document and
 * selection variables (operation/shared-events.ts), whatever the root field's own arguments;
 * a field that does not share its events is executed per subscriber, as graphql-js does.
 */

interface Tick {
  n: number;
}

/** A schema whose event source hands every subscriber the same event objects; resolvers count their calls. */
function world() {
  const calls = { n: 0, label: 0 };
  const listeners = new Set<(tick: Tick) => void>();
  const source = () => {
    const queue: Tick[] = [];
    let wake: (() => void) | null = null;
    const listener = (tick: Tick) => {
      queue.push(tick);
      wake?.();
    };
    listeners.add(listener);
    const iterator: AsyncIterableIterator<Tick> = {
      next: async () => {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        return { done: false, value: queue.shift()! };
      },
      return: async () => {
        listeners.delete(listener);
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  };
  const TickType = new GraphQLObjectType<Tick>({
    name: 'Tick',
    fields: {
      n: {
        type: GraphQLInt,
        resolve: (t) => {
          calls.n++;
          return t.n;
        },
      },
      label: {
        type: GraphQLString,
        args: { prefix: { type: GraphQLString } },
        resolve: (t, { prefix }) => {
          calls.label++;
          return `${prefix ?? ''}${t.n}`;
        },
      },
    },
  });
  const ids = { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLID))) };
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt, resolve: () => 1 } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        ticks: { type: TickType, args: { ids }, subscribe: source, resolve: (t) => t, extensions: { [SHARED_EVENTS]: true } },
        solo: { type: TickType, args: { ids }, subscribe: source, resolve: (t) => t },
      },
    }),
  });
  const emit = (tick: Tick) => {
    for (const l of listeners) l(tick);
  };
  return { schema, calls, emit };
}

async function subscribe(schema: GraphQLSchema, document: ReturnType<typeof parse>, variables: Record<string, unknown>) {
  const definition = document.definitions[0] as Parameters<typeof subscribeShared>[1];
  const stream = (await subscribeShared({ schema, document, variableValues: variables }, definition)) as AsyncIterableIterator<ExecutionResult>;
  return stream;
}

describe('shared events', () => {
  it('subscribers of one document get one execution per event, the same result object, whatever their root arguments', async () => {
    const { schema, calls, emit } = world();
    const document = parse('subscription S($ids: [ID!]!) { ticks(ids: $ids) { n } }');
    const streams = await Promise.all(Array.from({ length: 20 }, (_, i) => subscribe(schema, document, { ids: [`resort-${i}`] })));
    const waiting = streams.map((s) => s.next());
    const event = { n: 7 };
    emit(event);
    const results = (await Promise.all(waiting)).map((r) => r.value as ExecutionResult);
    expect(results[0]).toEqual({ data: { ticks: { n: 7 } } });
    expect(new Set(results).size).toBe(1);
    expect(calls.n).toBe(1);
    emit({ n: 8 });
    expect(new Set((await Promise.all(streams.map((s) => s.next()))).map((r) => r.value)).size).toBe(1);
    expect(calls.n).toBe(2);
    for (const s of streams) await s.return!();
  });

  it('variables used in the selection make groups of their own; each group is executed once per event', async () => {
    const { schema, calls, emit } = world();
    const document = parse('subscription S($ids: [ID!]!, $p: String) { ticks(ids: $ids) { label(prefix: $p) } }');
    const a = await Promise.all([1, 2, 3].map(() => subscribe(schema, document, { ids: ['x'], p: 'a-' })));
    const b = await Promise.all([1, 2].map(() => subscribe(schema, document, { ids: ['y'], p: 'b-' })));
    const waiting = [...a, ...b].map((s) => s.next());
    emit({ n: 1 });
    const labels = (await Promise.all(waiting)).map((r) => (r.value as ExecutionResult<{ ticks: { label: string } }>).data!.ticks.label);
    expect(labels).toEqual(['a-1', 'a-1', 'a-1', 'b-1', 'b-1']);
    expect(calls.label).toBe(2);
  });

  it('a field that does not share its events is executed for each subscriber', async () => {
    const { schema, calls, emit } = world();
    const document = parse('subscription S($ids: [ID!]!) { solo(ids: $ids) { n } }');
    const streams = await Promise.all([1, 2, 3, 4].map(() => subscribe(schema, document, { ids: ['x'] })));
    const waiting = streams.map((s) => s.next());
    emit({ n: 3 });
    const results = (await Promise.all(waiting)).map((r) => r.value);
    expect(new Set(results).size).toBe(4);
    expect(calls.n).toBe(4);
  });
});
