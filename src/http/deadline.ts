export class DeadlineError extends Error {
  constructor(readonly ms: number) {
    super(`execution took longer than ${ms} ms`);
  }
}

/** Rejects with DeadlineError when `work` has not settled within `ms`; aborts `controller` then. */
export function withDeadline<T>(work: Promise<T>, ms: number, controller?: AbortController): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller?.abort();
      reject(new DeadlineError(ms));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

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
