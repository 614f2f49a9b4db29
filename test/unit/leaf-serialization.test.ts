import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { mayDisableLeafSerialization } from '../../src/operation/leaf-serialization.js';

describe('documents whose built-in leaves graphql-jit may leave unserialized', () => {
  const plain = (query: string) => mayDisableLeafSerialization(schema, parse(query));

  it('strings, floats, ints, booleans and our own scalars: yes (graphql-jit serializes DateTime either way)', () => {
    expect(plain('{ nearbyZips(zip: "90210") { center { zip lat lng } radiusMiles results { zip city distanceMiles } } }')).toBe(true);
    expect(plain('{ __typename zipStats { totalZips totalStates } }')).toBe(true);
    expect(plain('query Z($z: String!) { zip(zip: $z) { city lat } }')).toBe(true);
    expect(plain('query Z($z: String!) { zip(zip: $z) { city lat lastUpdated } }')).toBe(true);
  });

  it('an ID or an enum anywhere: no', () => {
    expect(plain('{ zip(zip: "90210") { id city } }')).toBe(false);
    expect(plain('{ zip(zip: "90210") { city lastUpdated id } }')).toBe(false);
    expect(plain('{ resort(id: "vail") { name trails { difficulty } } }')).toBe(false);
    expect(plain('{ nearbyZips(zip: "90210") { results { zip details { id } } } }')).toBe(false);
  });
});
