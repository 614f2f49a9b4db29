type PromClient = typeof import('prom-client');

export interface MetricSources {
  /** Response cache lookups so far. */
  cache(): { hits: number; misses: number; stored: number; bytes: number };
  /** Each provider's circuit: open or not. */
  breakers(): { provider: string; open: boolean }[];
  /** Requests per key this month (in memory, written to SQLite once a second). */
  usage(): { keyId: number; requests: number }[];
  /** Live conditions: streams listening, resort reports listened to, updates queued so far. */
  live(): { subscribers: number; topics: number; updates: number };
  /** When this replica last published or applied a sync run's window (null: not since start). */
  windowAt(): Date | null;
}

/**
 * Prometheus metrics (prom-client), served at /metrics to keys with the admin scope: requests by
 * route and status with latency histograms, response cache hits, sync runs and their outcome,
 * upstream calls and breaker state, key usage, and the process's own (CPU, memory, event loop).
 * Per-request work is a cached label child's increment and observe; everything else is read when
 * Prometheus scrapes.
 *
 * prom-client is loaded after the server listens (`load()`, or the first scrape), not before the
 * first answer: its import and the default collectors are a measurable part of start-up (BENCHMARKS.md, design figures: start-up). What happens
 * before it is there (a few requests at most) is kept in order and counted once it is.
 */
export function createMetrics(sources: MetricSources) {
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
      live = liveMetrics((module as { default?: PromClient }).default ?? module, sources);
      for (const event of early.splice(0)) event(live);
      return live;
    }));

  return {
    /** Loads prom-client now (the server calls it once it listens). */
    load: (): Promise<unknown> => load(),
    /** What Prometheus reads: the content type and the text. */
    scrape: async (): Promise<{ contentType: string; text: string }> => {
      const m = await load();
      return { contentType: m.contentType, text: await m.text() };
    },
    /** One answered request. */
    request: (route: string, method: string, status: number, seconds: number): void => record((m) => m.request(route, method, status, seconds)),
    syncRun: (status: string): void => record((m) => m.syncRun(status)),
    upstreamCall: (provider: string, outcome: string): void => record((m) => m.upstreamCall(provider, outcome)),
  };
}

type LiveMetrics = ReturnType<typeof liveMetrics>;

function liveMetrics({ Counter, Gauge, Histogram, Registry, collectDefaultMetrics }: PromClient, sources: MetricSources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer, by route template.',
    labelNames: ['route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
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
    help: 'Response cache lookups since start, by result (hit, miss) and answers stored.',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const c = sources.cache();
      this.set({ result: 'hit' }, c.hits);
      this.set({ result: 'miss' }, c.misses);
      this.set({ result: 'stored' }, c.stored);
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
    name: 'sync_window_applied_timestamp_seconds',
    help: 'When this replica last published or applied a sync run’s window (Unix seconds; absent before the first). Its age is how stale the data may be.',
    registers: [registry],
    collect() {
      const at = sources.windowAt();
      if (at) this.set(at.getTime() / 1000);
    },
  });

  const requestChildren = new Map<string, ReturnType<typeof requests.labels>>();
  const durationChildren = new Map<string, ReturnType<typeof duration.labels>>();

  return {
    contentType: registry.contentType,
    text: () => registry.metrics(),
    request(route: string, method: string, status: number, seconds: number): void {
      const key = `${route} ${method} ${status}`;
      let child = requestChildren.get(key);
      if (!child) requestChildren.set(key, (child = requests.labels(route, method, String(status))));
      child.inc();
      let timer = durationChildren.get(route);
      if (!timer) durationChildren.set(route, (timer = duration.labels(route)));
      timer.observe(seconds);
    },
    syncRun: (status: string) => syncRuns.inc({ status }),
    upstreamCall: (provider: string, outcome: string) => upstreamCalls.inc({ provider, outcome }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
