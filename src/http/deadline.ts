/** A request with a deadline: when it is past `due` and still in the set, `timeOut()` is called. */
export interface Tracked {
  due: number;
  timeOut(): void;
}

/**
 * Request deadlines without a timer per request: every request in flight is in one set, swept a
 * few times a second, and each one past its due time is expired (which aborts its work and
 * answers 503). A timer and a promise race per request cost more than most answers.
 */
export class Deadlines {
  private readonly inFlight = new Set<Tracked>();
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
    this.inFlight.add(t);
  }

  done(t: Tracked): void {
    this.inFlight.delete(t);
  }

  private sweep(): void {
    const now = this.now();
    for (const t of this.inFlight) {
      if (t.due > now) continue;
      this.inFlight.delete(t);
      t.timeOut();
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
