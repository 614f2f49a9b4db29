import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * What an operation's introspection costs, in the cost analysis' units (Pothos counts a `__schema`
 * or `__type` field as 1 and never looks inside): a whole schema, every type with its fields,
 * arguments and descriptions, is about what 50,000 units of data cost to answer (a tenth of a
 * second), so five at most fit in one operation; a type, what a page of ZIPs costs. Counted where
 * the operation's root selects them, directly or through fragments (each fragment once).
 */
export const INTROSPECTION_COSTS: Readonly<Record<string, number>> = { __schema: 50_000, __type: 500 };

export function introspectionCost(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const spread = new Set<string>();
  const costOf = (set: SelectionSetNode): number => {
    let cost = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) cost += INTROSPECTION_COSTS[selection.name.value] ?? 0;
      else if (selection.kind === Kind.INLINE_FRAGMENT) cost += costOf(selection.selectionSet);
      else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || spread.has(fragment.name.value)) continue;
        spread.add(fragment.name.value);
        cost += costOf(fragment.selectionSet);
      }
    }
    return cost;
  };
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  return operation ? costOf(operation.selectionSet) : 0;
}
