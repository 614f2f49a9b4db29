import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createUpstream, UpstreamError } from '../src/providers/upstream.js';
import { OpenMeteoProvider } from '../src/providers/open-meteo.js';
import { LiftieProvider } from '../src/providers/liftie.js';
import { loadResortCatalogue } from '../src/data/db/sources/resort-source.js';
import { addDays } from '../src/domain/dates.js';
import { fakeDaily, startFakeUpstream, type FakeUpstream } from './helpers/fake-upstream.js';
import { until } from './helpers/wait.js';
import { ProviderCalls } from '../src/lib/provider-calls.js';

const TODAY = '2027-01-15';
const silent = pino({ level: 'silent' });
const vail = loadResortCatalogue().find((r) => r.id === 'vail')!;
let fake: FakeUpstream;

beforeAll(async () => {
  fake = await startFakeUpstream({ today: TODAY });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.mode = 'ok';
  fake.requests.length = 0;
  fake.maxInFlight = 0;
});

const upstream = (overrides: Partial<Parameters<typeof createUpstream>[0]> = {}) =>
  // A time-out no busy machine reaches; the tests of time-outs set their own.
  createUpstream({ name: 'open-meteo', logger: silent, timeoutMs: 10_000, retries: 2, backoffMs: 5, concurrency: 4, ...overrides });
const meteo = (u = upstream()) => new OpenMeteoProvider(u, { forecast: `${fake.url}/v1/forecast`, archive: `${fake.url}/v1/archive` });
const dayIndex = (d: string) => Math.round(Date.parse(`${d}T00:00:00Z`) / 86_400_000);

describe('Open-Meteo adapter', () => {
  it('maps the forecast API to daily weather at base, mid-mountain and summit', async () => {
    const from = addDays(TODAY, -59);
    const to = addDays(TODAY, 6);
    const days = await meteo().daily(vail, from, to, TODAY);
    expect(days).toHaveLength(66);
    expect(days[0]!.date).toBe(from);
    expect(days.at(-1)!.date).toBe(to);
    const url = new URL(fake.requests[0]!, 'http://x');
    // Base, mid-mountain (halfway, to the metre) and summit, at the resort's coordinates.
    expect(url.searchParams.get('elevation')).toBe('2475,3001,3527');
    expect(url.searchParams.get('latitude')).toBe(`${vail.lat},${vail.lat},${vail.lat}`);
    // A day more each way: Open-Meteo counts from the resort's local today. Asked in its zone.
    expect(url.searchParams.get('past_days')).toBe('60');
    expect(url.searchParams.get('forecast_days')).toBe('8');
    expect(url.searchParams.get('timezone')).toBe('America/Denver');
    expect(url.searchParams.get('hourly')).toBe('snow_depth,snowfall');
    for (const d of days) {
      const i = dayIndex(d.date);
      expect(d.baseTempMax).toBe(fakeDaily.tempMax(2475, i));
      expect(d.summitTempMin).toBe(fakeDaily.tempMin(3527, i));
      expect(d.midTempMin).toBe(fakeDaily.tempMin(3001, i));
      expect(d.midTempMax).toBe(fakeDaily.tempMax(3001, i));
      expect(d.windSpeedMidKmh).toBe(Math.round((20 + 3001 / 100) * 10) / 10);
      expect(d.windGustMidKmh).toBe(Math.round((35 + 3001 / 100) * 10) / 10);
      expect(d.snowfallMidCm).toBe(fakeDaily.snowfall(i));
      expect(d.snowfallSummitCm).toBe(fakeDaily.snowfall(i));
      // Preceding-hour values: the label 01:00 is hour 0; the label 00:00 of the next day is hour 23.
      const hours = Array.from({ length: 24 }, (_, h) => (h < 23 ? fakeDaily.snowfallAtLabel(i, h + 1) : fakeDaily.snowfallAtLabel(i + 1, 0)));
      expect(d.snowfallSummitHourly).toBe(hours.join(','));
      expect(d.snowDepthBaseCm).toBe(125);
      expect(d.snowDepthMidCm).toBe(125);
      expect(d.windGustSummitKmh).toBeGreaterThanOrEqual(d.windSpeedSummitKmh);
      if (d.date >= TODAY) expect([80, 10]).toContain(d.precipitationProbability);
      else expect(d.precipitationProbability).toBe(d.precipitationMm > 0 ? 100 : 0);
    }
    expect(days.at(-1)!.seasonSnowfallCm).toBeGreaterThan(days[0]!.seasonSnowfallCm);
  });

  it('asks the archive for past years and every sample point in one call', async () => {
    const points = [
      { lat: 39.6, lng: -106.35 },
      { lat: 39.7, lng: -106.35 },
      { lat: 39.5, lng: -106.3 },
    ];
    const series = await meteo().history(vail, points, '2025-01-01', '2025-01-10', false);
    expect(series).toHaveLength(3);
    expect(series[0]).toHaveLength(10);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatch(/^\/v1\/archive\?latitude=39.6,39.7,39.5/);
    await meteo().history(vail, points, '2027-01-01', TODAY, true);
    expect(fake.requests[1]).toMatch(/^\/v1\/forecast\?/);
  });

  it('reports the documented error body and does not retry a 400', async () => {
    fake.mode = 'bad-request';
    const err = await meteo()
      .daily(vail, '2027-01-10', TODAY, TODAY)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(/Cannot initialize WeatherVariable/);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries 5xx with backoff, a bounded number of times', async () => {
    fake.mode = 'server-error';
    await expect(meteo().daily(vail, '2027-01-10', TODAY, TODAY)).rejects.toThrow(/upstream temporarily unavailable/);
    expect(fake.requests).toHaveLength(3);
  });

  it('retries 429 and network errors the same bounded number of times', async () => {
    fake.mode = 'rate-limited';
    await expect(meteo().daily(vail, '2027-01-10', TODAY, TODAY)).rejects.toThrow(/Too many requests/);
    expect(fake.requests).toHaveLength(3);
    fake.requests.length = 0;
    fake.mode = 'reset';
    await expect(meteo().daily(vail, '2027-01-10', TODAY, TODAY)).rejects.toThrow(UpstreamError);
    expect(fake.requests).toHaveLength(3);
    // A retry that succeeds is an answer.
    fake.requests.length = 0;
    fake.mode = 'rate-limited-once';
    const days = await meteo().daily(vail, '2027-01-10', TODAY, TODAY);
    expect(days.length).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(2);
  });

  it('backs off exponentially with jitter: each wait is between half and all of 1, 2, 4 × the first backoff', async () => {
    fake.mode = 'server-error';
    const draws = [0, 0.5, 0.999];
    const waits: number[] = [];
    const u = upstream({ retries: 3, backoffMs: 100, random: () => draws.shift()!, sleep: async (ms) => void waits.push(ms) });
    await expect(meteo(u).daily(vail, '2027-01-10', TODAY, TODAY)).rejects.toThrow(/upstream temporarily unavailable/);
    expect(fake.requests).toHaveLength(4);
    expect(waits.map((ms) => Math.round(ms * 10) / 10)).toEqual([50, 150, 399.8]);
  });

  it('with the documented breaker defaults, 5 failing attempts within a minute open the circuit and 4 do not', async () => {
    fake.mode = 'server-error';
    const defaults = () => createUpstream({ name: 'open-meteo', logger: silent, timeoutMs: 300, retries: 0, backoffMs: 5, concurrency: 4 });
    const four = defaults();
    for (let i = 0; i < 4; i++)
      await meteo(four)
        .daily(vail, '2027-01-10', TODAY, TODAY)
        .catch(() => {});
    expect(four.breaker.opened).toBe(false);
    const five = defaults();
    for (let i = 0; i < 5; i++)
      await meteo(five)
        .daily(vail, '2027-01-10', TODAY, TODAY)
        .catch(() => {});
    expect(five.breaker.opened).toBe(true);
    // 429s count as failures too; a 400 (the caller's mistake) does not.
    fake.mode = 'bad-request';
    const clientErrors = defaults();
    for (let i = 0; i < 6; i++)
      await meteo(clientErrors)
        .daily(vail, '2027-01-10', TODAY, TODAY)
        .catch(() => {});
    expect(clientErrors.breaker.opened).toBe(false);
    fake.mode = 'rate-limited';
    const limited = defaults();
    for (let i = 0; i < 5; i++)
      await meteo(limited)
        .daily(vail, '2027-01-10', TODAY, TODAY)
        .catch(() => {});
    expect(limited.breaker.opened).toBe(true);
  });

  it('mixed outcomes: more than half failing opens the circuit, half does not; after UPSTREAM_BREAKER_RESET_MS one success closes it', async () => {
    const u = upstream({ retries: 0, resetTimeoutMs: 100 });
    const p = meteo(u);
    const attempt = (mode: FakeUpstream['mode']) => {
      fake.mode = mode;
      return p.daily(vail, '2027-01-10', TODAY, TODAY).then(
        () => 'ok',
        () => 'failed',
      );
    };
    for (let i = 0; i < 5; i++) expect(await attempt('ok')).toBe('ok');
    // Five failures after five answers: 50 %, the circuit stays closed.
    for (let i = 0; i < 5; i++) expect(await attempt('server-error')).toBe('failed');
    expect(u.breaker.opened).toBe(false);
    // A sixth: 6 of 11, more than half: open, and the next call fails without reaching the provider.
    expect(await attempt('server-error')).toBe('failed');
    expect(u.breaker.opened).toBe(true);
    const calls = fake.requests.length;
    fake.mode = 'ok';
    await expect(p.daily(vail, '2027-01-10', TODAY, TODAY)).rejects.toThrow(/circuit open/);
    expect(fake.requests.length).toBe(calls);
    // Once the reset time has passed, one trial goes through; its success closes the circuit.
    await until(
      async () => u.breaker.halfOpen,
      (half) => half,
    );
    expect(await attempt('ok')).toBe('ok');
    expect(u.breaker.opened).toBe(false);
    expect(fake.requests.length).toBe(calls + 1);
  });

  it('times out a provider that does not answer', async () => {
    fake.mode = 'hang';
    // The time-out's own error (not a socket error, nor the test's time-out) is what ended it.
    await expect(meteo(upstream({ retries: 0, timeoutMs: 150 })).daily(vail, '2027-01-10', TODAY, TODAY)).rejects.toThrow(/timed out \(after 150 ms\)/);
  });

  it("calls given up at the caller's deadline fail as the provider's time-out (UPSTREAM_FAILED), not a cancellation; counted while open", async () => {
    fake.mode = 'hang';
    const providers = new ProviderCalls();
    const bounds = { deadline: performance.now() + 60_000, providers };
    const call = meteo(upstream({ retries: 2, timeoutMs: 60_000 })).history(vail, [vail], '2027-01-08', '2027-01-14', true, bounds);
    await until(
      async () => fake.inFlight(),
      (n) => n === 1,
    );
    expect(providers.open).toBe(1);
    expect(providers.giveUp()).toBe(true);
    const failure = await call.catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).failure).toBe('timed out');
    expect(providers.open).toBe(0);
    // Once only, and never for a request with nothing open.
    expect(providers.giveUp()).toBe(false);
    expect(new ProviderCalls().giveUp()).toBe(false);
  });

  it("an attempt whose time-out is longer than what is left of the caller's deadline is cut to it, and runs", async () => {
    // What is left of a deadline is a fraction of a millisecond off a whole number; the attempt still runs.
    const bounds = { deadline: performance.now() + 20_000.5 };
    const days = await meteo(upstream({ retries: 0, timeoutMs: 60_000 })).history(vail, [vail], '2027-01-08', '2027-01-14', true, bounds);
    expect(days[0]).toHaveLength(7);
    expect(fake.requests).toHaveLength(1);
  });

  it('rejects malformed responses: not JSON, or not the documented shape', async () => {
    fake.mode = 'not-json';
    await expect(meteo().daily(vail, '2027-01-10', TODAY, TODAY)).rejects.toThrow(/malformed response \(not JSON\)/);
    fake.mode = 'wrong-shape';
    await expect(meteo().daily(vail, '2027-01-10', TODAY, TODAY)).rejects.toThrow(/malformed response/);
  });

  it('opens the circuit after repeated failures and then fails fast without calling', async () => {
    fake.mode = 'server-error';
    const u = upstream({ retries: 0, volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 60_000 });
    const p = meteo(u);
    for (let i = 0; i < 3; i++) await p.daily(vail, '2027-01-10', TODAY, TODAY).catch(() => {});
    expect(u.breaker.opened).toBe(true);
    const calls = fake.requests.length;
    fake.mode = 'ok';
    await expect(p.daily(vail, '2027-01-10', TODAY, TODAY)).rejects.toThrow(/circuit open/);
    expect(fake.requests.length).toBe(calls);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    fake.mode = 'slow';
    fake.delayMs = 60;
    const p = meteo(upstream({ concurrency: 2 }));
    await Promise.all(Array.from({ length: 6 }, () => p.daily(vail, '2027-01-10', TODAY, TODAY)));
    expect(fake.requests).toHaveLength(6);
    expect(fake.maxInFlight).toBe(2);
  });
});

describe('Liftie adapter', () => {
  const liftie = (u = createUpstream({ name: 'liftie', logger: silent, timeoutMs: 10_000, retries: 1, backoffMs: 5, concurrency: 2 })) =>
    new LiftieProvider(u, `${fake.url}/liftie`);

  it('maps lift statuses by name', async () => {
    const lifts = await liftie().lifts('vail');
    expect(lifts).toEqual([
      { name: 'Eagle Bahn Gondola', status: 'OPEN' },
      { name: 'Born Free Express', status: 'HOLD' },
      { name: 'Riva Bahn Express', status: 'SCHEDULED' },
      { name: 'Sourdough Express', status: 'CLOSED' },
    ]);
    expect(fake.requests).toEqual(['/liftie/vail']);
  });

  it('fails cleanly on errors, time-outs and malformed bodies', async () => {
    fake.mode = 'wrong-shape';
    await expect(liftie().lifts('vail')).rejects.toBeInstanceOf(UpstreamError);
    fake.mode = 'hang';
    await expect(
      liftie(createUpstream({ name: 'liftie', logger: silent, timeoutMs: 300, retries: 0, backoffMs: 5, concurrency: 2 })).lifts('vail'),
    ).rejects.toThrow(/timed out \(after 300 ms\)/);
    fake.mode = 'bad-request';
    await expect(liftie().lifts('vail')).rejects.toThrow(/liftie/);
  });
});
