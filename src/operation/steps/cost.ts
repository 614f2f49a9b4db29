import { getVariableValues, GraphQLError, Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import { LRUCache } from 'lru-cache';
import { refuse, type Outcome, type Step } from '../operation.js';
import { isIncremental } from './execute.js';
import { introspectionCost } from './introspection-cost.js';

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

/** Variables that do not coerce: at most this many of their errors are found and told. */
export const MAX_VARIABLE_ERRORS = 20;

/**
 * What costing an operation found: its cost; none, when its variables do not coerce (execution
 * then reports them, without running anything); or a refusal (nothing else may run uncosted).
 */
export type Costing = { cost: OperationCost } | { cost: null } | { refused: readonly GraphQLError[] };

/**
 * The cost of the operation the request runs (not the document's first) with its variables, from
 * the schema's declared field costs. Memoized per operation (parsed documents are cached, REST
 * documents are fixed) and numeric variables, the only inputs a cost may depend on (see
 * builder.ts), in a memo bounded in bytes: a client sending ever new large variables is costed each
 * time and fills nothing. On a miss, variables are coerced, stopping at MAX_VARIABLE_ERRORS: with
 * that many errors the operation is refused here (Pothos and the executors would each find every error
 * of a long list, seconds for a few thousand). An argument a field's cost is worked out from, out
 * of its bounds, refuses the operation: nothing runs uncosted, and a bad limit inside a long list
 * is one error, not one per item.
 */
export function createCostAnalysis(schema: GraphQLSchema) {
  const memo = new WeakMap<OperationDefinitionNode, { alone: DocumentNode; byVariables: LRUCache<string, { cost: OperationCost }> | null }>();

  return function costOf(document: DocumentNode, operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>> | null | undefined): Costing {
    let kept = memo.get(operation);
    if (!kept) memo.set(operation, (kept = { alone: operationAlone(document, operation), byVariables: null }));
    const key = numericKey(operation, variables ?? {});
    const remembered = key.length <= MAX_MEMO_KEY_CHARS;
    const hit = remembered ? kept.byVariables?.get(key) : undefined;
    if (hit) return hit;
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: MAX_VARIABLE_ERRORS });
    if (coerced.errors) return coerced.errors.length < MAX_VARIABLE_ERRORS ? { cost: null } : { refused: coerced.errors.map(asBadInput) };
    const costing = costed(schema, kept.alone, variables ?? {});
    // Only a cost is kept: whether an argument is within its bounds may turn on a string, which the
    // key leaves out.
    if (remembered && 'cost' in costing && costing.cost) {
      kept.byVariables ??= new LRUCache({ maxSize: MEMO_BYTES_PER_DOCUMENT, sizeCalculation: (_v, k) => k.length + 64 });
      kept.byVariables.set(key, costing);
    }
    return costing;
  };
}

/** The operation with the document's fragments: what Pothos costs (it costs a document's first operation). */
function operationAlone(document: DocumentNode, operation: OperationDefinitionNode): DocumentNode {
  if (document.definitions.length === 1) return document;
  return { kind: Kind.DOCUMENT, definitions: [operation, ...document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)] };
}

function costed(schema: GraphQLSchema, alone: DocumentNode, variables: Readonly<Record<string, unknown>>): Costing {
  try {
    const cost = complexityFromQuery(alone, { schema, variables: variables as Record<string, unknown> });
    return { cost: { ...cost, complexity: cost.complexity + introspectionCost(alone) } };
  } catch (error) {
    // A field's cost reads its checked arguments (Pothos' validation plugin): one out of its bounds
    // is refused here, for the whole operation, rather than leaving the cost unknown.
    return { refused: [error instanceof GraphQLError && error.extensions.code === 'BAD_USER_INPUT' ? error : UNCOSTABLE] };
  }
}

/** GraphQL's own reason, as the request error it is (the code execution gives it). */
const asBadInput = (e: GraphQLError) =>
  new GraphQLError(e.message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    extensions: { ...e.extensions, code: 'BAD_USER_INPUT' },
  });

/** Costing failed otherwise (it should not): nothing runs uncosted. */
const UNCOSTABLE = new GraphQLError("The operation's cost cannot be worked out from its arguments: check them against the schema.", {
  extensions: { code: 'BAD_USER_INPUT' },
});

/**
 * The memo's key: the operation's own variables as sent (undeclared names left out: what coerces
 * them follows from them), in their declared order, a string standing for any string (a cost reads
 * numbers only; only costs are kept, so a string that does not coerce is never a hit) and a
 * variable left out apart from one sent as null (a default applies to the first). JSON throughout,
 * so no value can pass for another's separator. Long keys are not kept.
 */
function numericKey(operation: OperationDefinitionNode, values: Readonly<Record<string, unknown>>): string {
  let key = '';
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const v = Object.hasOwn(values, name) ? values[name] : undefined;
    key += v === undefined ? '-' : typeof v === 'string' ? '"' : JSON.stringify(v);
    key += ',';
    if (key.length > MAX_MEMO_KEY_CHARS) return key;
  }
  return key;
}

/**
 * What delivering an operation in parts (@defer or @stream, on a transport that streams) multiplies
 * its cost by: each deferred fragment and streamed item is a part of its own, executed, encoded
 * and sent apart, about ten times the work and several times the memory of the same data in one
 * answer (measured: docs/hardening.md).
 */
export const INCREMENTAL_COST_FACTOR = 10;

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
 * anything runs (times INCREMENTAL_COST_FACTOR when delivered in parts): over a limit is
 * QUERY_TOO_COMPLEX (400). The cost is recorded on the context for
 * the budget step, `extensions.cost` and the log. Variables that do not coerce leave it unknown
 * (execution reports them, without running anything), or are refused here past
 * MAX_VARIABLE_ERRORS; an argument out of the bounds a cost depends on is refused (400).
 */
export function costStep(schema: GraphQLSchema): Step {
  const costOf = createCostAnalysis(schema);
  return {
    name: 'cost',
    run(op): Outcome | undefined {
      const costing = costOf(op.document!, op.definition!, op.variables);
      if ('refused' in costing) return { kind: 'refused', errors: costing.refused, status: 400, jsonStatus: 400 };
      if (!costing.cost) return undefined;
      const incremental = op.transport.streams && isIncremental(op.document!);
      const cost = incremental ? { ...costing.cost, complexity: costing.cost.complexity * INCREMENTAL_COST_FACTOR } : costing.cost;
      op.context.cost = cost.complexity;
      const over = overLimit(cost);
      return over ? refuse(over, 400) : undefined;
    },
  };
}
