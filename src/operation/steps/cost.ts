import { GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import { LRUCache } from 'lru-cache';
import { refuse, type Step } from '../operation.js';

/** The most work one operation may ask for: fields resolved, lists weighted by their size. */
export const COST_LIMITS = { complexity: 250_000, depth: 14, breadth: 400 } as const;

export interface OperationCost {
  complexity: number;
  depth: number;
  breadth: number;
}

/** Variables whose numeric part is longer than this are costed each time, not remembered. */
export const MAX_MEMO_KEY_CHARS = 256;
/** Bytes of memo keys kept per document. */
const MEMO_BYTES_PER_DOCUMENT = 16 * 1024;

/**
 * The cost of an operation with its variables, from the schema's declared field costs. Memoized
 * per document (parsed documents are cached, REST documents are fixed) and numeric variables,
 * the only inputs a cost may depend on (see builder.ts), in a memo bounded in bytes: a client
 * sending ever new large variables is costed each time and fills nothing. Null when the variables
 * do not coerce: execution then reports that, without running anything.
 */
export function createCostAnalysis(schema: GraphQLSchema) {
  const memo = new WeakMap<DocumentNode, LRUCache<string, { cost: OperationCost | null }>>();

  return function costOf(document: DocumentNode, variables: Readonly<Record<string, unknown>> | null | undefined): OperationCost | null {
    const key = numericKey(variables);
    const remembered = key.length <= MAX_MEMO_KEY_CHARS;
    let byVariables = memo.get(document);
    const hit = remembered ? byVariables?.get(key) : undefined;
    if (hit) return hit.cost;
    let cost: OperationCost | null;
    try {
      cost = complexityFromQuery(document, { schema, variables: (variables ?? {}) as Record<string, unknown> });
    } catch {
      cost = null;
    }
    if (remembered) {
      if (!byVariables) memo.set(document, (byVariables = new LRUCache({ maxSize: MEMO_BYTES_PER_DOCUMENT, sizeCalculation: (_v, k) => k.length + 64 })));
      byVariables.set(key, { cost });
    }
    return cost;
  };
}

/** The numeric variables, as text (stops growing past the memo's limit: such keys are not kept). */
function numericKey(variables: Readonly<Record<string, unknown>> | null | undefined): string {
  if (!variables) return '';
  let key = '';
  for (const name in variables) {
    const v = variables[name];
    if (typeof v === 'number') key += `${name}=${v};`;
    else if (typeof v === 'object' && v !== null) key += `${name}=${JSON.stringify(v)};`;
    if (key.length > MAX_MEMO_KEY_CHARS) return key;
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

/**
 * What the operation costs, from the schema's declared field costs and its variables, before
 * anything runs: over a limit is QUERY_TOO_COMPLEX (400). The cost is recorded on the context for
 * the budget step, `extensions.cost` and the log. Variables that do not coerce leave it unknown:
 * execution reports them, without running anything.
 */
export function costStep(schema: GraphQLSchema): Step {
  const costOf = createCostAnalysis(schema);
  return {
    name: 'cost',
    run(op) {
      const cost = costOf(op.document!, op.variables);
      if (!cost) return undefined;
      op.context.cost = cost.complexity;
      const over = overLimit(cost);
      return over ? refuse(over, 400) : undefined;
    },
  };
}
