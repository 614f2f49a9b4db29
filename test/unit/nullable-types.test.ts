import { describe, expect, it } from 'vitest';
import { nullablesAsTypeArrays } from '../../src/transports/rest/nullable-types.js';

/**
 * The OpenAPI document's nullable schemas (transports/rest/nullable-types.ts): zod's
 * `anyOf: [x, { type: 'null' }]` rewritten as x with `type: [x.type, 'null']`, everywhere under the
 * schema, and only where that reads the same.
 */
const rewritten = (schema: unknown) => {
  const copy = structuredClone(schema);
  nullablesAsTypeArrays(copy);
  return copy;
};
const NULL = { type: 'null' };

describe('rewritten', () => {
  it('x or null, x a typed schema with more than its type: x with the type array', () => {
    expect(rewritten({ anyOf: [{ type: 'string', format: 'date-time' }, NULL], description: 'when' })).toEqual({
      description: 'when',
      type: ['string', 'null'],
      format: 'date-time',
    });
  });

  it('everywhere under the schema: in properties, in arrays of schemas, nested', () => {
    const schema = {
      properties: { a: { anyOf: [{ type: 'integer', minimum: 0 }, NULL] }, b: { type: 'string' } },
      allOf: [{ anyOf: [{ type: 'number', maximum: 1 }, NULL] }],
    };
    expect(rewritten(schema)).toEqual({
      properties: { a: { type: ['integer', 'null'], minimum: 0 }, b: { type: 'string' } },
      allOf: [{ type: ['number', 'null'], maximum: 1 }],
    });
  });
});

describe('kept as they are', () => {
  it('an x with enum, const or $ref (null would fail or the reference be lost), or without a string type', () => {
    for (const x of [
      { type: 'string', enum: ['A'] },
      { type: 'string', const: 'A' },
      { $ref: '#/x', type: 'object' },
      { type: ['string', 'integer'] },
      { minimum: 1 },
    ]) {
      const schema = { anyOf: [x, NULL] };
      expect(rewritten(schema), JSON.stringify(x)).toEqual(schema);
    }
  });

  it('an anyOf that is not exactly x or a bare null: a third branch, a null with more, another type, one branch', () => {
    for (const anyOf of [
      [{ type: 'string' }, NULL, { type: 'integer' }],
      [{ type: 'string' }, { type: 'null', description: 'none' }],
      [{ type: 'string' }, { type: 'integer' }],
      [{ type: 'string' }],
      [null, NULL],
      [],
    ]) {
      const schema = { anyOf };
      expect(rewritten(schema), JSON.stringify(anyOf)).toEqual(schema);
    }
  });

  it('values that are no schema: null, strings, numbers, an anyOf that is not a list', () => {
    for (const value of [null, 'text', 3, { anyOf: 'x' }, [null, 1]]) expect(rewritten(value)).toEqual(value);
  });
});
