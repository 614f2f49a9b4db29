import type { GraphQLContext } from './context.js';

/**
 * The answer's `extensions.cost`: what the cost analysis gave (`requestedQueryCost`), and the key's
 * cost budget after this request (`throttleStatus`, in the shape Shopify's API uses).
 */
export function withCost<R extends { extensions?: Record<string, unknown> }>(result: R, ctx: GraphQLContext): R {
  if (ctx.cost === undefined) return result;
  const throttleStatus = ctx.budgetHolder ? ctx.costBudget.status(ctx.budgetHolder) : undefined;
  return { ...result, extensions: { ...result.extensions, cost: { requestedQueryCost: ctx.cost, ...(throttleStatus ? { throttleStatus } : {}) } } };
}

