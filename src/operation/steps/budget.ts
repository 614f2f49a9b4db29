import type { CostLimitedError } from '../../auth/cost-budget.js';
import { refuse, type Outcome, type Step } from '../operation.js';

const refused = (error: CostLimitedError): Outcome => refuse(error, 429, 429, error.headers);

/**
 * The operation's cost is spent from its key's budget (auth/cost-budget.ts; shared through Redis
 * by replicas): 429 RATE_LIMITED with RateLimit headers when it does not fit. A subscription pays
 * once, when it starts; a kept answer (the response-cache step, before this one) pays nothing.
 */
export const budgetStep: Step = {
  name: 'budget',
  run(op) {
    const ctx = op.context;
    if (ctx.cost === undefined) return undefined;
    const charged = ctx.costBudget.charge(ctx.budgetHolder, ctx.cost);
    if (charged === null) return undefined;
    if (charged instanceof Promise) return charged.then((error) => (error ? refused(error) : undefined));
    return refused(charged);
  },
};
