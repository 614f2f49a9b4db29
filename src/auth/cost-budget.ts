import { GraphQLError } from 'graphql';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** 429 for a request whose cost does not fit in its key's budget; carries its RateLimit headers. */
export class CostLimitedError extends GraphQLError {
  constructor(
    cost: number,
    readonly budget: number,
    readonly windowSeconds: number,
    retryAfterSeconds: number,
    remaining: number,
  ) {
    super(
      `This request costs ${cost} and the key's cost budget of ${budget} per ${windowSeconds} s has ${remaining} left; ` +
        `try again in ${retryAfterSeconds} s, or ask for less (smaller pages, shorter history windows).`,
      { extensions: { code: 'RATE_LIMITED', status: 429 } },
    );
    this.headers = [
      'retry-after', String(retryAfterSeconds),
      'ratelimit-limit', String(budget),
      'ratelimit-remaining', String(remaining),
      'ratelimit-reset', String(retryAfterSeconds),
    ];
  }

  /** Response headers (flat pairs) for the 429, REST or GraphQL. */
  readonly headers: string[];
}

/** Whose budget: a key's id and its per-second request rate (its plan). */
export interface BudgetHolder {
  id: number;
  ratePerSecond: number;
}

/**
 * Each key's cost budget: the GraphQL complexity units its requests may spend per window, on top
 * of its request rate, so that expensive requests are limited by what they cost rather than by
 * their count. A key's budget grows with its plan: `unitsPerRequest` per request its rate allows
 * (a free key at 25 requests/s may spend 25 × 2,000 units a second; every answer the response
 * cache keeps costs nothing). Counted with rate-limiter-flexible (in memory here).
 */
export class CostBudget {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(
    readonly unitsPerRequest: number,
    readonly windowSeconds: number,
    private readonly makeLimiter: (points: number, duration: number) => RateLimiterAbstract = (points, duration) =>
      new RateLimiterMemory({ points, duration, keyPrefix: `cost${points}` }),
  ) {}

  /** Units a key may spend per window. */
  budgetOf(holder: BudgetHolder): number {
    return holder.ratePerSecond * this.unitsPerRequest * this.windowSeconds;
  }

  private limiterFor(budget: number): RateLimiterAbstract {
    let limiter = this.limiters.get(budget);
    if (!limiter) this.limiters.set(budget, (limiter = this.makeLimiter(budget, this.windowSeconds)));
    return limiter;
  }

  /** Spends `cost` of the key's budget, or answers why not. Requests without a key (AUTH=off) are not counted. */
  async charge(holder: BudgetHolder | null, cost: number): Promise<CostLimitedError | null> {
    if (holder === null || cost <= 0) return null;
    const budget = this.budgetOf(holder);
    const limiter = this.limiterFor(budget);
    const key = String(holder.id);
    try {
      await limiter.consume(key, cost);
      return null;
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      // A refused request spends nothing: give back what the attempt counted.
      await limiter.reward(key, cost);
      const retry = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      return new CostLimitedError(cost, budget, this.windowSeconds, retry, Math.max(0, budget - (res.consumedPoints - cost)));
    }
  }
}
