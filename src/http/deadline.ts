import type { ProviderCalls } from '../lib/provider-calls.js';

/**
 * A request with a deadline: when it is past `due` and still tracked, its open provider calls are
 * given up, and at the next sweep, if it is still tracked, `timeOut()` is called.
 */
export interface Tracked {
  due: number;
  /** Its provider calls, if it has made any. */
  providers?: ProviderCalls;
  /** Its place in Deadlines' list while it is watched (start it at -1; Deadlines' bookkeeping). */
  slot: number;
  timeOut(): void;
}

/**
 * Request deadlines without a timer per request: every request in flight is in one list, swept a
 * few times a second, and each one past its due time is expired (which aborts its work and
 * answers 503). A timer and a promise race per request cost more than most answers.
 *
 * The list is an array that never shrinks (its length is the most requests ever in flight at
 * once), and each request knows its place in it, so adding and removing one allocates nothing.
 * A Set reallocated its table as the requests in flight came and went: about 120 bytes of
 * every request in a heap profile (BENCHMARKS.md, 2026-11-27).
 */
export class Deadlines {
  private readonly inFlight: (Tracked | undefined)[] = [];
  private count = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly ms: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.timer = setInterval(() => this.sweep(), Math.max(10, Math.min(250, ms / 4)));
    this.timer.unref();
  }

  /** Watches one request from now; `done` when it has answered. */
  track(t: Tracked): void {
    t.due = this.now() + this.ms;
    if (this.has(t)) return;
    t.slot = this.count;
    this.inFlight[this.count++] = t;
  }

  /** Stops watching a request (again is nothing). */
  done(t: Tracked): void {
    if (!this.has(t)) return;
    const i = t.slot;
    // The last one takes its place.
    const last = this.inFlight[--this.count]!;
    this.inFlight[i] = last;
    last.slot = i;
    this.inFlight[this.count] = undefined;
  }

  private has(t: Tracked): boolean {
    return t.slot >= 0 && t.slot < this.count && this.inFlight[t.slot] === t;
  }

  /** How many requests are being watched. */
  get size(): number {
    return this.count;
  }

  /** Expires every request past its due time. */
  sweep(): void {
    const now = this.now();
    // From the end: a request removed on the way is replaced by one already looked at.
    for (let i = this.count - 1; i >= 0; i--) {
      const t = this.inFlight[i];
      if (t === undefined || t.due > now) continue;
      // Provider calls still open fail first, as the provider's failure: the request answers with
      // that by the next sweep (it is left in the list for it), or times out then.
      if (t.providers?.giveUp()) continue;
      this.done(t);
      t.timeOut();
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
