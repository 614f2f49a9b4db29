import { RateLimiterRes } from './rate-limiter.js';

/**
 * Points per fixed window of `duration` seconds, the windows aligned to the injected clock
 * (window n is [n·duration, (n+1)·duration) on it), with the part of rate-limiter-flexible's
 * interface the cost budget and the pages use: `consume` counts and rejects past the points (as
 * RateLimiterMemory does, what it counted stays counted), `reward` gives back; both answer with
 * rate-limiter-flexible's RateLimiterRes. Its memory store reads the wall clock and runs timers of
 * its own; this one reads the server's clock, so a test moves time instead of waiting for it.
 */
export class WindowLimiter {
  private readonly used = new Map<string, { window: number; points: number }>();
  private readonly windowMs: number;

  constructor(
    private readonly points: number,
    durationSeconds: number,
    private readonly now: () => number,
  ) {
    this.windowMs = durationSeconds * 1000;
  }

  consume(key: string, points = 1): Promise<RateLimiterRes> {
    const res = this.add(key, points);
    return res.consumedPoints > this.points ? Promise.reject(res) : Promise.resolve(res);
  }

  /** Counts one point now, as `consume` does, and says whether that went past the points (no promise: for a request's hot path). */
  exceeded(key: string): boolean {
    return this.add(key, 1).consumedPoints > this.points;
  }

  reward(key: string, points = 1): Promise<RateLimiterRes> {
    return Promise.resolve(this.add(key, -points));
  }

  private add(key: string, points: number): RateLimiterRes {
    const t = this.now();
    const window = Math.floor(t / this.windowMs);
    let entry = this.used.get(key);
    if (!entry || entry.window !== window) {
      // Entries of past windows go when there are many (a key is one small object until then).
      if (!entry && this.used.size >= 10_000) for (const [k, e] of this.used) if (e.window < window) this.used.delete(k);
      entry = { window, points: 0 };
      this.used.set(key, entry);
    }
    entry.points = Math.max(0, entry.points + points);
    return new RateLimiterRes(Math.max(0, this.points - entry.points), (window + 1) * this.windowMs - t, entry.points, entry.points === points);
  }
}
