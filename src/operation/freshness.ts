import {
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Freshness } from '../data/data-version.js';

/**
 * What each Query field's answer depends on, declared once: the ZIP data (fixed until a rebuild,
 * 'static'), the resort data of the hour ('data'), or nothing that stays the same between two
 * requests ('none': health and the sync subsystem's state). Fields not listed are 'none', so a
 * new field is never cached by mistake.
 */
export const QUERY_FIELD_FRESHNESS: Readonly<Record<string, Freshness>> = {
  zip: 'static',
  nearbyZips: 'static',
  states: 'static',
  state: 'static',
  city: 'static',
  zipStats: 'static',
  zips: 'static',
  zipDistance: 'static',
  zipsNear: 'static',
  cities: 'static',
  resort: 'data',
  resorts: 'data',
  compareResorts: 'data',
  resortsNear: 'data',
  topSnow: 'data',
  openNow: 'data',
  stormWatch: 'data',
  snowInsights: 'data',
  health: 'none',
  syncStatus: 'none',
  syncHistory: 'none',
};

const RANK: Record<Freshness, number> = { static: 0, data: 1, none: 2 };
const worse = (a: Freshness, b: Freshness): Freshness => (RANK[a] >= RANK[b] ? a : b);

/**
 * Fields below a Query field that reach data of another kind than their root's: a ZIP's nearby
 * resorts depend on the resort data. (test/unit/freshness.test.ts checks that no other path leads
 * from a ZIP field to a resort.)
 */
export const CROSSINGS: Readonly<Record<string, Freshness>> = { 'Zip.nearbyResorts': 'data' };

/**
 * The freshness of a GraphQL query document: the worst of its root fields' and of the crossings
 * it selects; mutations and subscriptions are 'none'. Remembered per document (the parse cache
 * hands out one document per text).
 */
export function createFreshnessOf(schema: GraphQLSchema): (document: DocumentNode) => Freshness {
  const memo = new WeakMap<DocumentNode, Freshness>();
  const query = schema.getQueryType()!;

  function walk(
    set: SelectionSetNode,
    parent: GraphQLNamedType,
    acc: { f: Freshness },
    fragments: Map<string, FragmentDefinitionNode>,
    seen: Set<string>,
  ): void {
    for (const sel of set.selections) {
      if (acc.f === 'none') return;
      if (sel.kind === Kind.FIELD) {
        const name = sel.name.value;
        if (name.startsWith('__')) continue; // __typename, and introspection: the schema, fixed for the process
        if (parent === query) acc.f = worse(acc.f, QUERY_FIELD_FRESHNESS[name] ?? 'none');
        const crossing = CROSSINGS[`${parent.name}.${name}`];
        if (crossing) acc.f = worse(acc.f, crossing);
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
        if (sel.selectionSet && field) walk(sel.selectionSet, getNamedType(field.type), acc, fragments, seen);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? (schema.getType(sel.typeCondition.name.value) ?? parent) : parent;
        walk(sel.selectionSet, on, acc, fragments, seen);
      } else {
        const fragment = fragments.get(sel.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        seen.add(fragment.name.value);
        walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? parent, acc, fragments, seen);
      }
    }
  }

  return (document) => {
    const known = memo.get(document);
    if (known) return known;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const acc = { f: 'static' as Freshness };
    for (const d of document.definitions) {
      if (d.kind !== Kind.OPERATION_DEFINITION) continue;
      if (d.operation !== 'query') acc.f = 'none';
      else walk(d.selectionSet, query, acc, fragments, new Set());
    }
    memo.set(document, acc.f);
    return acc.f;
  };
}
