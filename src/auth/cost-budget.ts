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

/**
 * Each key's cost budget: the GraphQL complexity units its requests may spend per window, on top
 * of its request rate, so that expensive requests are limited by what they cost rather than by
 * their count. Counted with rate-limiter-flexible (in memory here; a shared store for replicas).
 */
export class CostBudget {
  constructor(
    readonly budget: number,
    readonly windowSeconds: number,
    private readonly limiter: RateLimiterAbstract = new RateLimiterMemory({ points: budget, duration: windowSeconds, keyPrefix: 'cost' }),
  ) {}

  /** Spends `cost` of the key's budget, or answers why not. Requests without a key (AUTH=off) are not counted. */
  async charge(keyId: number | null, cost: number): Promise<CostLimitedError | null> {
    if (keyId === null || cost <= 0) return null;
    const key = String(keyId);
    try {
      await this.limiter.consume(key, cost);
      return null;
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      // A refused request spends nothing: give back what the attempt counted.
      await this.limiter.reward(key, cost);
      const retry = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      return new CostLimitedError(cost, this.budget, this.windowSeconds, retry, Math.max(0, this.budget - (res.consumedPoints - cost)));
    }
  }

  /** The policy, in the RateLimit-Policy form, for the headers of every answer. */
  get policy(): string {
    return `${this.budget};w=${this.windowSeconds};comment="cost"`;
  }
}
