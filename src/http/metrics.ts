import { LATENCY_BUCKETS, RequestTally } from './request-tally.js';

type PromClient = typeof import('prom-client');

export interface MetricSources {
  /** Response cache lookups so far. */
  cache(): { hits: number; misses: number; stored: number; declined: number; bytes: number };
  /** Each provider's circuit: open or not. */
  breakers(): { provider: string; open: boolean }[];
  /** Requests per key this month (in memory, written to SQLite once a second). */
  usage(): { keyId: number; requests: number }[];
  /** Live conditions: streams listening, resort reports listened to, updates queued so far. */
  live(): { subscribers: number; topics: number; updates: number; fanOutCpuSeconds: number };
  /** When this replica last published or applied a sync run's window (null: not since start). */
  windowAt(): Date | null;
}

const NOTHING_YET: MetricSources = {
  cache: () => ({ hits: 0, misses: 0, stored: 0, declined: 0, bytes: 0 }),
  breakers: () => [],
  usage: () => [],
  live: () => ({ subscribers: 0, topics: 0, updates: 0, fanOutCpuSeconds: 0 }),
  windowAt: () => null,
};

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Prometheus metrics (prom-client), served at /metrics to keys with the admin scope: requests by
 * route and status with latency histograms, response cache hits, sync runs and their outcome,
 * upstream calls and breaker state, key usage, and the process's own (CPU, memory, event loop).
 * Per-request work is a tally in plain numbers (request-tally.ts); everything is read into series
 * when Prometheus scrapes.
 *
 * prom-client is loaded after the server listens (`load()`, or the first scrape), not before the
 * first answer: its import and the default collectors are a measurable part of start-up (BENCHMARKS.md, design figures: start-up). Sync runs
 * and upstream calls before it is there (a few at most) are kept in order and counted once it is.
 */
export function createMetrics(given: Partial<MetricSources> = {}) {
  // What the parts of the server report, each added by the part that has it (observe); until then, nothing.
  const sources: MetricSources = { ...NOTHING_YET, ...given };
  const tally = new RequestTally();
  let live: LiveMetrics | null = null;
  let loading: Promise<LiveMetrics> | null = null;
  /** Bounded: it is loaded just after listening (config.warmUpDelayMs), when a server has answered few requests. */
  const early: ((m: LiveMetrics) => void)[] = [];
  const EARLY_MAX = 100_000;
  const record = (event: (m: LiveMetrics) => void) => {
    if (live) event(live);
    else if (early.length < EARLY_MAX) early.push(event);
  };
  const load = (): Promise<LiveMetrics> =>
    (loading ??= import('prom-client').then((module) => {
      // A CommonJS package: its exports are the default export (named ones are not always copied).
      live = liveMetrics((module as { default?: PromClient }).default ?? module, sources, tally);
      for (const event of early.splice(0)) event(live);
      return live;
    }));

  return {
    /** Adds what a part of the server reports (read when Prometheus scrapes). */
    observe: (more: Partial<MetricSources>): void => void Object.assign(sources, more),
    /** Loads prom-client now (the server calls it once it listens). */
    load: (): Promise<unknown> => load(),
    /** What Prometheus reads: the content type and the text. */
    scrape: async (): Promise<{ contentType: string; text: string }> => {
      const m = await load();
      return { contentType: m.contentType, text: await m.text() };
    },
    /** One answered request. */
    request: (route: string, method: string, status: number, seconds: number): void => tally.add(route, method, status, seconds),
    syncRun: (status: string): void => record((m) => m.syncRun(status)),
    upstreamCall: (provider: string, outcome: string): void => record((m) => m.upstreamCall(provider, outcome)),
  };
}

type LiveMetrics = ReturnType<typeof liveMetrics>;

function liveMetrics({ Counter, Gauge, Registry, collectDefaultMetrics, register: processRegistry }: PromClient, sources: MetricSources, tally: RequestTally) {
  // The process's own metrics (CPU, memory, GC, event loop) are collected once a process, into
  // prom-client's global registry (its default): each collection adds a GC observer nothing can
  // remove, which kept the server that made it reachable (and ran once a GC) after every server a
  // process closed.
  if (!processRegistry.getSingleMetric('process_cpu_user_seconds_total')) collectDefaultMetrics();
  const registry = new Registry();

  new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { route, answers } of tally.all())
        for (const [method, byStatus] of answers) for (const [status, n] of byStatus) this.inc({ route, method, status: String(status) }, n);
    },
  });
  registry.registerMetric(latencyHistogram(tally) as unknown as Parameters<typeof registry.registerMetric>[0]);
  const syncRuns = new Counter({ name: 'sync_runs_total', help: 'Sync runs finished, by outcome.', labelNames: ['status'], registers: [registry] });
  const upstreamCalls = new Counter({
    name: 'upstream_calls_total',
    help: 'Calls to weather and lift providers, by provider and outcome.',
    labelNames: ['provider', 'outcome'],
    registers: [registry],
  });
  new Gauge({
    name: 'upstream_circuit_open',
    help: '1 while a provider’s circuit breaker is open (calls fail fast).',
    labelNames: ['provider'],
    registers: [registry],
    collect() {
      for (const b of sources.breakers()) this.set({ provider: b.provider }, b.open ? 1 : 0);
    },
  });
  new Gauge({
    name: 'response_cache_lookups',
    help: 'Response cache lookups since start, by result (hit, miss), and answers stored or declined by admission (asked for too rarely).',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const c = sources.cache();
      this.set({ result: 'hit' }, c.hits);
      this.set({ result: 'miss' }, c.misses);
      this.set({ result: 'stored' }, c.stored);
      this.set({ result: 'declined' }, c.declined);
    },
  });
  new Gauge({
    name: 'response_cache_bytes',
    help: 'Bytes of answers the response cache holds.',
    registers: [registry],
    collect() {
      this.set(sources.cache().bytes);
    },
  });
  new Gauge({
    name: 'api_key_requests_this_month',
    help: 'Requests each key has made this month (UTC).',
    labelNames: ['key_id'],
    registers: [registry],
    collect() {
      this.reset();
      for (const u of sources.usage()) this.set({ key_id: String(u.keyId) }, u.requests);
    },
  });

  new Gauge({
    name: 'live_subscribers',
    help: 'Live conditions subscriptions open on this replica.',
    registers: [registry],
    collect() {
      this.set(sources.live().subscribers);
    },
  });
  new Gauge({
    name: 'live_resort_reports',
    help: 'Resort reports (per units) live subscribers listen to: what one change costs to compute.',
    registers: [registry],
    collect() {
      this.set(sources.live().topics);
    },
  });
  new Gauge({
    name: 'live_updates_sent',
    help: 'Live conditions updates queued for subscribers since start (one per subscriber and resort).',
    registers: [registry],
    collect() {
      this.set(sources.live().updates);
    },
  });
  new Gauge({
    name: 'live_fanout_cpu_seconds',
    help: 'CPU seconds this replica spent on live changes since start: reports made, updates executed, serialized and written (with live_updates_sent, the cost of one).',
    registers: [registry],
    collect() {
      this.set(sources.live().fanOutCpuSeconds);
    },
  });
  registry.registerMetric(windowGauge(sources) as unknown as Parameters<typeof registry.registerMetric>[0]);

  const served = Registry.merge([processRegistry, registry]);
  return {
    contentType: served.contentType,
    text: () => served.metrics(),
    syncRun: (status: string) => syncRuns.inc({ status }),
    upstreamCall: (provider: string, outcome: string) => upstreamCalls.inc({ provider, outcome }),
  };
}

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * A metric whose samples are read from elsewhere at each scrape, in the shape prom-client's own
 * metrics give the registry (which prints the type and samples its get() returns).
 */
function computedMetric(name: string, help: string, type: 'gauge' | 'histogram', samples: () => Sample[]) {
  // The aggregator is read only by prom-client's AggregatorRegistry (a cluster's workers), which this server never uses.
  return { name, help, type, aggregator: 'sum', reset() {}, get: async () => ({ name, help, type, aggregator: 'sum', values: samples() }) };
}

/**
 * When this replica last published or applied a window, with no sample before the first:
 * prom-client's own gauge reads 0 until set, the Unix epoch, and an alert on its age
 * (docs/operations.md) would fire at every start until the first sync run.
 */
function windowGauge(sources: MetricSources) {
  return computedMetric(
    'sync_window_applied_timestamp_seconds',
    'When this replica last published or applied a sync run’s window (Unix seconds; absent before the first). Its age is how stale the data may be.',
    'gauge',
    () => {
      const at = sources.windowAt();
      return at ? [{ labels: {}, value: at.getTime() / 1000 }] : [];
    },
  );
}

const LATENCY = 'http_request_duration_seconds';

/**
 * The latency histogram from the tallies, as prom-client's own histograms give it (cumulative
 * `le` buckets, then sum and count per route).
 */
function latencyHistogram(tally: RequestTally) {
  return computedMetric(LATENCY, 'Time to answer, by route template.', 'histogram', () => {
    const values: Sample[] = [];
    for (const { route, buckets, sumSeconds, count } of tally.all()) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += buckets[i]!;
        values.push({ labels: { le, route }, value: cumulative, metricName: `${LATENCY}_bucket` });
      });
      values.push({ labels: { le: '+Inf', route }, value: count, metricName: `${LATENCY}_bucket` });
      values.push({ labels: { route }, value: sumSeconds, metricName: `${LATENCY}_sum` });
      values.push({ labels: { route }, value: count, metricName: `${LATENCY}_count` });
    }
    return values;
  });
}
