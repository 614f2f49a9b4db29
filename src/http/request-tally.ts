/**
 * Answered requests counted in plain numbers: by route template, method and status, and each
 * route's latency in histogram buckets. A request adds to a few fields it found the first time
 * (no label hashing, no string built, no closure); /metrics turns the tallies into Prometheus
 * series when it is scraped (metrics.ts). Counting does not wait for prom-client to load.
 */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export interface RouteTally {
  readonly route: string;
  /** Answers by method, then status. */
  readonly answers: Map<string, Map<number, number>>;
  /** Answers per latency bucket (not cumulative; the last counts those over the largest bound). */
  readonly buckets: Float64Array;
  sumSeconds: number;
  count: number;
}

export class RequestTally {
  private readonly routes = new Map<string, RouteTally>();

  add(route: string, method: string, status: number, seconds: number): void {
    let tally = this.routes.get(route);
    if (!tally) this.routes.set(route, (tally = { route, answers: new Map(), buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sumSeconds: 0, count: 0 }));
    let byStatus = tally.answers.get(method);
    if (!byStatus) tally.answers.set(method, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
    tally.buckets[bucket]!++;
    tally.sumSeconds += seconds;
    tally.count++;
  }

  all(): IterableIterator<RouteTally> {
    return this.routes.values();
  }
}
