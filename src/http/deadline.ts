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

interface Tracked {
  due: number;
  expire: () => void;
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

  /** Watches one request; call the returned function when it is done. */
  track(expire: () => void): () => void {
    const t = { due: this.now() + this.ms, expire };
    this.inFlight.add(t);
    return () => this.inFlight.delete(t);
  }

  private sweep(): void {
    const now = this.now();
    for (const t of this.inFlight) {
      if (t.due > now) continue;
      this.inFlight.delete(t);
      t.expire();
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
