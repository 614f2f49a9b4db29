import { setImmediate as turn } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import promClient from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/http/metrics.js';

const sources = {
  cache: () => ({ hits: 0, misses: 0, stored: 0, declined: 0, bytes: 0 }),
  breakers: () => [],
  usage: () => [],
  live: () => ({ subscribers: 3, topics: 2, updates: 17, fanOutCpuSeconds: 0.25 }),
  windowAt: () => new Date('2027-01-15T12:00:00Z'),
};

describe('metrics', () => {
  // prom-client is loaded after the server listens: what happened before is counted when it is.
  it('counts what happened before prom-client was loaded, in order, once', async () => {
    const metrics = createMetrics(sources);
    metrics.request('/api/zip/{zip}', 'GET', 200, 0.002);
    metrics.request('/api/zip/{zip}', 'GET', 200, 0.003);
    metrics.upstreamCall('open-meteo', 'ok');
    metrics.syncRun('SUCCEEDED');
    await metrics.load();
    metrics.request('/api/zip/{zip}', 'GET', 404, 0.001);
    const { contentType, text } = await metrics.scrape();
    expect(contentType).toMatch(/^text\/plain/);
    expect(text).toMatch(/^http_requests_total\{route="\/api\/zip\/\{zip\}",method="GET",status="200"\} 2$/m);
    expect(text).toMatch(/^http_requests_total\{route="\/api\/zip\/\{zip\}",method="GET",status="404"\} 1$/m);
    expect(text).toMatch(/^http_request_duration_seconds_count\{route="\/api\/zip\/\{zip\}"\} 3$/m);
    // Cumulative buckets, a bound's own value inside it (0.001 ≤ 0.001), as Prometheus reads them.
    const bucket = (le: string) =>
      text.match(new RegExp(`^http_request_duration_seconds_bucket\\{le="${le.replace('+', '\\+')}",route="/api/zip/\\{zip\\}"\\} (\\d+)$`, 'm'))?.[1];
    expect([bucket('0.0005'), bucket('0.001'), bucket('0.0025'), bucket('0.005'), bucket('10'), bucket('+Inf')]).toEqual(['0', '1', '2', '3', '3', '3']);
    expect(text).toMatch(/^http_request_duration_seconds_sum\{route="\/api\/zip\/\{zip\}"\} 0\.006$/m);
    expect(text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
    expect(text).toMatch(/^upstream_calls_total\{provider="open-meteo",outcome="ok"\} 1$/m);
    expect(text).toMatch(/^sync_runs_total\{status="SUCCEEDED"\} 1$/m);
    expect(text).toMatch(/^live_subscribers 3$/m);
    expect(text).toMatch(/^live_resort_reports 2$/m);
    expect(text).toMatch(/^live_updates_sent 17$/m);
    expect(text).toMatch(/^live_fanout_cpu_seconds 0\.25$/m);
    expect(text).toMatch(/^sync_window_applied_timestamp_seconds 1800014400$/m);
  });

  it('reads each source when scraped: breakers, the response cache, key usage; a part that reports later is read from then', async () => {
    let usage = [
      { keyId: 1, requests: 10 },
      { keyId: 2, requests: 3 },
    ];
    const metrics = createMetrics({ usage: () => usage });
    const before = (await metrics.scrape()).text;
    // Nothing reported yet: zeros, no breaker, no window.
    expect(before).toMatch(/^response_cache_lookups\{result="hit"\} 0$/m);
    expect(before).toMatch(/^live_subscribers 0$/m);
    expect(before).not.toMatch(/^upstream_circuit_open\{/m);
    expect(before).not.toMatch(/^sync_window_applied_timestamp_seconds\b/m);
    expect(before).toMatch(
      /^# HELP sync_window_applied_timestamp_seconds When this replica last published or applied a sync run’s window \(Unix seconds; absent before the first\)\. Its age is how stale the data may be\.\n# TYPE sync_window_applied_timestamp_seconds gauge$/m,
    );
    metrics.observe({
      breakers: () => [
        { provider: 'open-meteo', open: true },
        { provider: 'liftie', open: false },
      ],
      cache: () => ({ hits: 5, misses: 7, stored: 2, declined: 4, bytes: 4096 }),
    });
    const text = (await metrics.scrape()).text;
    expect(text).toMatch(/^upstream_circuit_open\{provider="open-meteo"\} 1$/m);
    expect(text).toMatch(/^upstream_circuit_open\{provider="liftie"\} 0$/m);
    for (const [result, n] of [
      ['hit', 5],
      ['miss', 7],
      ['stored', 2],
      ['declined', 4],
    ])
      expect(text).toMatch(new RegExp(`^response_cache_lookups\\{result="${result}"\\} ${n}$`, 'm'));
    expect(text).toMatch(/^response_cache_bytes 4096$/m);
    expect(text).toMatch(/^api_key_requests_this_month\{key_id="1"\} 10$/m);
    expect(text).toMatch(/^api_key_requests_this_month\{key_id="2"\} 3$/m);
    expect(text).toMatch(/^# HELP http_request_duration_seconds Time to answer, by route template\.$/m);
    // The histogram's series are its buckets, sum and count, never a bare sample.
    expect(text).not.toMatch(/^http_request_duration_seconds[ {]/m);
    // A key gone from the usage is gone from the series (not left at its last value).
    usage = [{ keyId: 2, requests: 4 }];
    const after = (await metrics.scrape()).text;
    expect(after).not.toMatch(/key_id="1"/);
    expect(after).toMatch(/^api_key_requests_this_month\{key_id="2"\} 4$/m);
    // The process's own series are there too (prom-client's default collectors).
    expect(after).toMatch(/^process_cpu_seconds_total \d/m);
  });

  it('once loaded, counts sync runs and upstream calls at once; before, keeps at most 100,000 of them', async () => {
    const metrics = createMetrics();
    for (let i = 0; i < 100_005; i++) metrics.upstreamCall('liftie', 'ok');
    await metrics.load();
    metrics.syncRun('FAILED');
    metrics.upstreamCall('liftie', 'ok');
    const { text } = await metrics.scrape();
    expect(text).toMatch(/^sync_runs_total\{status="FAILED"\} 1$/m);
    expect(text).toMatch(/^upstream_calls_total\{provider="liftie",outcome="ok"\} 100001$/m);
  });

  it('counts requests again from the tally at each scrape, not twice', async () => {
    const metrics = createMetrics();
    metrics.request('/graphql', 'POST', 200, 0.01);
    await metrics.scrape();
    metrics.request('/graphql', 'POST', 200, 0.01);
    const { text } = await metrics.scrape();
    expect(text).toMatch(/^http_requests_total\{route="\/graphql",method="POST",status="200"\} 2$/m);
    expect(text).toMatch(/^http_request_duration_seconds_sum\{route="\/graphql"\} 0\.02$/m);
  });

  // The suite starts hundreds of servers in one process; prom-client's GC observer, one a collection
  // and never removed, kept each closed server reachable through its registry.
  it('collects the process’s own metrics once a process, and keeps nothing of a server whose metrics are dropped', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    // As in a process no server has loaded prom-client in yet.
    promClient.register.clear();
    const dropped = (() => {
      const live = () => sources.live();
      const metrics = createMetrics({ ...sources, live });
      return { reads: new WeakRef(live), scraped: metrics.scrape() };
    })();
    const kept = await createMetrics(sources).scrape();
    for (const { text } of [await dropped.scraped, kept]) {
      expect(text.match(/^# TYPE process_cpu_user_seconds_total counter$/gm)).toHaveLength(1);
      expect(text.match(/^# TYPE nodejs_gc_duration_seconds histogram$/gm)).toHaveLength(1);
      expect(text).toMatch(/^live_subscribers 3$/m);
    }
    await turn();
    gc();
    expect(dropped.reads.deref()).toBeUndefined();
  });
});
