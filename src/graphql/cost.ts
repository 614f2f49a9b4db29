import { GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import { complexityFromQuery } from '@pothos/plugin-complexity';

/** The most work one operation may ask for: fields resolved, lists weighted by their size. */
export const COST_LIMITS = { complexity: 250_000, depth: 14, breadth: 400 } as const;

export interface OperationCost {
  complexity: number;
  depth: number;
  breadth: number;
}

/**
 * The cost of an operation with its variables, from the schema's declared field costs. Memoized
 * per document (parsed documents are cached, REST documents are fixed) and numeric variables,
 * the only inputs a cost may depend on (see builder.ts). Null when the variables do not coerce:
 * execution then reports that, without running anything.
 */
export function createCostAnalysis(schema: GraphQLSchema) {
  const memo = new WeakMap<DocumentNode, Map<string, OperationCost | null>>();

  return function costOf(document: DocumentNode, variables: Readonly<Record<string, unknown>> | null | undefined): OperationCost | null {
    let byVariables = memo.get(document);
    if (!byVariables) memo.set(document, (byVariables = new Map()));
    const key = numericKey(variables);
    let cost = byVariables.get(key);
    if (cost === undefined) {
      try {
        cost = complexityFromQuery(document, { schema, variables: (variables ?? {}) as Record<string, unknown> });
      } catch {
        cost = null;
      }
      if (byVariables.size >= 256) byVariables.clear();
      byVariables.set(key, cost);
    }
    return cost;
  };
}

function numericKey(variables: Readonly<Record<string, unknown>> | null | undefined): string {
  if (!variables) return '';
  let key = '';
  for (const name in variables) {
    const v = variables[name];
    if (typeof v === 'number' || (typeof v === 'object' && v !== null)) key += `${name}=${typeof v === 'number' ? v : JSON.stringify(v)};`;
  }
  return key;
}

/** The error for an operation over a limit, or null when it is within them all. */
export function overLimit(cost: OperationCost): GraphQLError | null {
  const [kind, actual, max] =
    cost.depth > COST_LIMITS.depth
      ? ['depth', cost.depth, COST_LIMITS.depth]
      : cost.breadth > COST_LIMITS.breadth
        ? ['breadth', cost.breadth, COST_LIMITS.breadth]
        : cost.complexity > COST_LIMITS.complexity
          ? ['complexity', cost.complexity, COST_LIMITS.complexity]
          : [null, 0, 0];
  if (!kind) return null;
  return new GraphQLError(`Query ${kind} ${actual} is over the limit of ${max}; ask for smaller pages or fewer nested lists.`, {
    extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 },
  });
}
