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
});
