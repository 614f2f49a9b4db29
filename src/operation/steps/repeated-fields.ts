import { GraphQLError, Kind, type FragmentDefinitionNode, type SelectionSetNode, type ValidationRule } from 'graphql';

/**
 * GraphQL checks that fields of one response name in one selection set can merge by comparing
 * them in pairs: its work grows with the square of how often a name repeats, up to a fixed amount
 * of work (graphql-js stops there, "too large to check"), a third of a second of one core for one
 * document of 450 repeats, ten times that in a batch. This bound is far below that and far above
 * what a client writes: the sum, over every selection set (inline fragments and fragments spread
 * into it merged in, as GraphQL merges them), of the square of each response name's count.
 */
export const MAX_REPEATED_FIELD_PAIRS = 5_000;

export const repeatedFieldsRule: ValidationRule = (context) => ({
  Document(document) {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    let pairs = 0;
    /** The fragments being expanded, outermost first: a cycle (validation refuses it) is not followed. */
    const expanding = new Set<string>();
    /** Counts a selection set's response names (and, field by field, its fields' own sets). */
    const count = (set: SelectionSetNode, counts: Map<string, number>, spread: Set<string>) => {
      for (const selection of set.selections) {
        if (pairs > MAX_REPEATED_FIELD_PAIRS) return;
        if (selection.kind === Kind.FIELD) {
          const name = selection.alias?.value ?? selection.name.value;
          counts.set(name, (counts.get(name) ?? 0) + 1);
          if (selection.selectionSet) measure(selection.selectionSet);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) count(selection.selectionSet, counts, spread);
        else {
          // A fragment merges in once per set, as GraphQL compares it once.
          const name = selection.name.value;
          const fragment = fragments.get(name);
          if (!fragment || spread.has(name) || expanding.has(name)) continue;
          spread.add(name);
          expanding.add(name);
          count(fragment.selectionSet, counts, spread);
          expanding.delete(name);
        }
      }
    };
    const measure = (set: SelectionSetNode) => {
      const counts = new Map<string, number>();
      count(set, counts, new Set());
      for (const n of counts.values()) pairs += n * n;
    };
    for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION) measure(d.selectionSet);
    if (pairs > MAX_REPEATED_FIELD_PAIRS) {
      context.reportError(
        new GraphQLError(
          `Too many repeated fields to check: over ${MAX_REPEATED_FIELD_PAIRS} pairs of fields of one name in one selection set (the sum of each name's count squared). Ask for each field once.`,
        ),
      );
    }
    return false;
  },
});
