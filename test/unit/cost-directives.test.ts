import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  buildSchema,
  getNamedType,
  type GraphQLField,
  isInterfaceType,
  isObjectType,
  Kind,
  parse,
  valueFromASTUntyped,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { createCostAnalysis } from '../../src/operation/steps/cost.js';

/**
 * The committed SDL's @cost / @listSize directives let a client compute a query's cost before
 * sending it: an estimator that reads only the SDL (as a tool following IBM's cost specification
 * would) gets exactly what the server's cost analysis charges.
 */
const sdl = buildSchema(readFileSync(path.join(import.meta.dirname, '../../schema/schema.graphql'), 'utf8'));

function directiveArgs(field: GraphQLField<unknown, unknown>, name: string) {
  const d = field.astNode?.directives?.find((x) => x.name.value === name);
  return d ? Object.fromEntries((d.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value)])) : undefined;
}

function estimate(s: GraphQLSchema, set: SelectionSetNode, type: GraphQLNamedType): number {
  let total = 0;
  for (const sel of set.selections) {
    if (sel.kind !== Kind.FIELD || sel.name.value.startsWith('__')) continue;
    const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[sel.name.value]! : undefined;
    if (!field) throw new Error(`no field ${sel.name.value}`);
    const weight = Number(directiveArgs(field, 'cost')?.weight ?? 1);
    const listSize = directiveArgs(field, 'listSize') as { assumedSize?: number; slicingArguments?: string[] } | undefined;
    const given = Object.fromEntries((sel.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value)]));
    const sliced = listSize?.slicingArguments
      ?.map((p) => p.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], given))
      .find((v) => typeof v === 'number');
    const size = (sliced as number | undefined) ?? listSize?.assumedSize ?? 1;
    total += weight + (sel.selectionSet ? size * estimate(s, sel.selectionSet, getNamedType(field.type)) : 0);
  }
  return total;
}

const costOf = createCostAnalysis(schema);

describe('costs in the SDL (@cost, @listSize)', () => {
  it.each([
    '{ zip(zip: "90210") { city nearby(limit: 5) { zip distanceMiles } } }',
    '{ zip(zip: "90210") { city nearby { zip } nearbyResorts { resort { id name } } } }',
    '{ states { stateCode zipcodes { zip city } } }',
    '{ states { zipcodes(limit: 3, offset: 2) { zip } } }',
    '{ resorts(paging: { limit: 7 }) { total resorts { id trails { id length } lifts { id } } } }',
    '{ resorts { resorts { id } } }',
    '{ syncHistory(limit: 3) { id status } }',
    '{ resort(id: "vail") { name history { current { snowfall } } conditions { snowDepthBase } weather { forecast { date } } } }',
    '{ topSnow { resorts { resort { id } } } openNow { resorts { resort { id } } } }',
  ])('%s: the SDL gives what the server charges', (text) => {
    const document = parse(text);
    const operation = document.definitions[0]!;
    if (operation.kind !== Kind.OPERATION_DEFINITION) throw new Error('not an operation');
    const fromSdl = estimate(sdl, operation.selectionSet, sdl.getQueryType()!);
    const costing = costOf(document, operation, {});
    expect(fromSdl).toBe('cost' in costing ? costing.cost?.complexity : costing);
  });
});
