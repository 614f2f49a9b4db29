import { ClientError } from '../lib/errors.js';
import { RateLimiterRes } from '../lib/rate-limiter.js';
import { WindowLimiter } from '../lib/window-limiter.js';

/** 429 for a request whose cost does not fit in its key's budget; carries its RateLimit headers. */
export class CostLimitedError extends ClientError {
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
      'retry-after',
      String(retryAfterSeconds),
      'ratelimit-limit',
      String(budget),
      'ratelimit-remaining',
      String(remaining),
      'ratelimit-reset',
      String(retryAfterSeconds),
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

/** What counts a budget's units: a WindowLimiter here, rate-limiter-flexible's Redis limiter across replicas. */
export interface UnitLimiter {
  consume(key: string, points: number): Promise<RateLimiterRes>;
  reward(key: string, points: number): Promise<RateLimiterRes>;
}

/**
 * Each key's cost budget: the GraphQL complexity units its requests may spend per window, on top
 * of its request rate, so that expensive requests are limited by what they cost rather than by
 * their count. A key's budget grows with its plan: `unitsPerRequest` per request its rate allows
 * (a free key at 25 requests/s may spend 25 × 2,000 units a second; every answer the response
 * cache keeps costs nothing). Counted in fixed windows on the server's clock (lib/window-limiter.ts),
 * or in Redis for replicas; the slices a key draws ahead expire on the same clock.
 */
export class CostBudget {
  private readonly limiters = new Map<number, UnitLimiter>();
  /** Units drawn ahead for each key's small charges, and when the limiter's window that holds them ends. */
  private readonly reserves = new Map<number, { units: number; until: number }>();
  /** What the limiter said was left of each key's window at its last answer, and when that window ends. */
  private readonly left = new Map<number, { points: number; until: number }>();

  private readonly makeLimiter: (points: number, duration: number) => UnitLimiter;

  constructor(
    readonly unitsPerRequest: number,
    readonly windowSeconds: number,
    /** The server's clock (ms): windows and drawn slices expire on it. */
    private readonly now: () => number,
    makeLimiter?: (points: number, duration: number) => UnitLimiter,
  ) {
    this.makeLimiter = makeLimiter ?? ((points, duration) => new WindowLimiter(points, duration, now));
  }

  /** Units a key may spend per window. */
  budgetOf(holder: BudgetHolder): number {
    return holder.ratePerSecond * this.unitsPerRequest * this.windowSeconds;
  }

  private limiterFor(budget: number): UnitLimiter {
    let limiter = this.limiters.get(budget);
    if (!limiter) this.limiters.set(budget, (limiter = this.makeLimiter(budget, this.windowSeconds)));
    return limiter;
  }

  /**
   * The key's budget as a client sees it (the throttleStatus of `extensions.cost`): the whole
   * budget, what is left of it now (the window's remainder and the key's unspent slice), and how
   * fast it comes back: the window is fixed, so all of it at the window's end; `restoreRate` is
   * the budget over the window, the average rate.
   */
  status(holder: BudgetHolder): { maximumAvailable: number; currentlyAvailable: number; restoreRate: number } {
    const budget = this.budgetOf(holder);
    const now = this.now();
    const left = this.left.get(holder.id);
    const reserve = this.reserves.get(holder.id);
    const inWindow = left && left.until > now ? left.points : budget;
    const unspent = reserve && reserve.until > now ? reserve.units : 0;
    return { maximumAvailable: budget, currentlyAvailable: Math.min(budget, inWindow + unspent), restoreRate: budget / this.windowSeconds };
  }

  private noteLeft(holder: BudgetHolder, res: RateLimiterRes): void {
    this.left.set(holder.id, { points: Math.max(0, res.remainingPoints), until: this.now() + res.msBeforeNext });
  }

  /**
   * Spends `cost` of the key's budget, or answers why not. Requests without a key (AUTH=off) are
   * not counted. A charge under a hundredth of the key's budget (a ZIP lookup costs a few units of
   * a free key's 500,000) is drawn from a slice of that size taken from the limiter ahead and kept
   * until the limiter's window ends, so most charges need no promise (the limiter answers every
   * call with one) and no round trip. A key may so be refused up to a slice early, or spend up to a
   * slice into the next window; a charge that does not fit in a slice is counted exactly.
   */
  charge(holder: BudgetHolder | null, cost: number): CostLimitedError | null | Promise<CostLimitedError | null> {
    if (holder === null || cost <= 0) return null;
    const reserve = this.reserves.get(holder.id);
    if (reserve && reserve.units >= cost && reserve.until > this.now()) {
      reserve.units -= cost;
      return null;
    }
    return this.draw(holder, cost);
  }

  private async draw(holder: BudgetHolder, cost: number): Promise<CostLimitedError | null> {
    const budget = this.budgetOf(holder);
    const limiter = this.limiterFor(budget);
    const key = String(holder.id);
    const slice = Math.floor(budget / SLICES_PER_BUDGET);
    if (cost < slice) {
      try {
        const res = await limiter.consume(key, slice);
        this.noteLeft(holder, res);
        const left = this.reserves.get(holder.id);
        const kept = left && left.until > this.now() ? left.units : 0;
        this.reserves.set(holder.id, { units: kept + slice - cost, until: this.now() + res.msBeforeNext });
        return null;
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        // No whole slice left: give it back and count this charge exactly.
        await limiter.reward(key, slice);
      }
    }
    try {
      this.noteLeft(holder, await limiter.consume(key, cost));
      return null;
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      // A refused request spends nothing: give back what the attempt counted.
      this.noteLeft(holder, await limiter.reward(key, cost));
      const retry = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      return new CostLimitedError(cost, budget, this.windowSeconds, retry, Math.max(0, budget - (res.consumedPoints - cost)));
    }
  }
}

/** A key's budget is drawn ahead in slices of this fraction (1 %) for its small charges. */
const SLICES_PER_BUDGET = 100;
