import { buildSchema, getNamedType, isObjectType, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { CROSSINGS, QUERY_FIELD_FRESHNESS, createFreshnessOf } from '../../src/operation/freshness.js';
import { routes } from '../../src/transports/rest/routes.js';

const freshnessOf = createFreshnessOf(schema);
const of = (text: string) => freshnessOf(parse(text));

describe('what a GraphQL answer depends on (the key of a kept GET answer)', () => {
  it('every Query field is declared', () => {
    expect(Object.keys(QUERY_FIELD_FRESHNESS).sort()).toEqual(Object.keys(schema.getQueryType()!.getFields()).sort());
  });

  it("each REST route's freshness is its operation's: one fact, two surfaces", () => {
    for (const route of routes) expect(freshnessOf(route.operation), route.path).toBe(route.freshness);
  });

  it('from a ZIP field, only a declared crossing leads to a resort', () => {
    const reached = new Set<string>();
    const stack = Object.entries(QUERY_FIELD_FRESHNESS)
      .filter(([, f]) => f === 'static')
      .map(([name]) => getNamedType(schema.getQueryType()!.getFields()[name]!.type));
    while (stack.length) {
      const type = stack.pop()!;
      if (reached.has(type.name) || !isObjectType(type)) continue;
      reached.add(type.name);
      for (const [name, field] of Object.entries(type.getFields())) if (!CROSSINGS[`${type.name}.${name}`]) stack.push(getNamedType(field.type));
    }
    expect(reached.has('Zip')).toBe(true);
    expect(reached.has('Resort')).toBe(false);
    expect(reached.has('NearbyResort')).toBe(false);
  });

  it.each([
    ['{ zip(zip: "90210") { city } }', 'static'],
    ['{ __typename }', 'static'],
    ['{ __schema { types { name } } }', 'static'],
    ['{ zip(zip: "90210") { nearbyResorts { resort { id } } } }', 'data'],
    ['{ zip(zip: "90210") { ...Near } } fragment Near on Zip { nearbyResorts { distanceMiles } }', 'data'],
    ['{ zip(zip: "90210") { ... on Zip { nearbyResorts { distanceMiles } } } }', 'data'],
    ['{ zip(zip: "90210") { city } resort(id: "vail") { name } }', 'data'],
    ['{ resort(id: "vail") { name } zip(zip: "90210") { city } }', 'data'],
    ['{ resort(id: "vail") { name } syncStatus { state } }', 'none'],
    ['{ health { status } }', 'none'],
    ['mutation { runSync { state } }', 'none'],
  ])('%s is %s', (text, expected) => {
    expect(of(text)).toBe(expected);
  });
});

describe('freshness over a schema of the test’s own (what the real one does not have yet)', () => {
  const own = buildSchema(`
    interface Place { name: String }
    type Zip implements Place { name: String nearbyResorts: [String] }
    type Query { zip: Place extra: String }
    type Mutation { zip: String }
  `);
  const ownOf = createFreshnessOf(own);
  it.each([
    // A Query field the table does not list is never kept.
    ['{ extra }', 'none'],
    ['{ zip { name } extra }', 'none'],
    // The crossing is found through a type condition on an interface, inline or in a fragment.
    ['{ zip { ... on Zip { nearbyResorts } } }', 'data'],
    ['{ zip { ...Near } } fragment Near on Zip { nearbyResorts }', 'data'],
    ['{ zip { name } }', 'static'],
    // A mutation is never kept, whatever its fields are called.
    ['mutation { zip }', 'none'],
  ])('%s is %s', (text, expected) => {
    expect(ownOf(parse(text))).toBe(expected);
  });
});
