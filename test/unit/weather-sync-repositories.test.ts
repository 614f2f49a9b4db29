import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/data/db/open.js';
import { WeatherRepository, type StoredDay } from '../../src/data/repositories/weather.js';
import { SyncRepository } from '../../src/data/repositories/sync.js';
import { emptyDatabase } from '../helpers/keys-db.js';

// A database of the real schema with three resorts and no weather, made for each test.
let store: ReturnType<typeof emptyDatabase>;
beforeEach(() => {
  store = emptyDatabase('weather-sync-');
  const add = store.db.prepare(
    `INSERT INTO resorts (id, name, country_code, country_name, region, continent, lat, lng, base_elevation, summit_elevation, lift_count, trail_count, timezone, inventory_source)
     VALUES (?, ?, 'US', 'United States', 'CO', 'North America', 39, -106, 2500, 3500, 10, 50, 'America/Denver', 'generated')`,
  );
  for (const id of ['alta', 'taos', 'vail']) add.run(id, id);
});
afterEach(() => store.remove());

/** A day whose every number differs, so a column read from another's place shows. */
const day = (resortId: string, date: string, snowfallSummitCm = 0, over: Partial<StoredDay> = {}): StoredDay => ({
  resortId,
  date,
  source: 'simulated',
  baseTempMin: -10,
  baseTempMax: -2,
  summitTempMin: -18,
  summitTempMax: -9,
  precipitationMm: 4.5,
  precipitationProbability: 60,
  snowfallBaseCm: 1.5,
  snowfallSummitCm,
  snowDepthBaseCm: 80,
  snowDepthSummitCm: 140,
  seasonSnowfallCm: 300,
  windSpeedBaseKmh: 12,
  windGustBaseKmh: 25,
  windSpeedSummitKmh: 30,
  windGustSummitKmh: 55,
  windDirectionDeg: 270,
  midTempMin: -14,
  midTempMax: -5,
  snowfallMidCm: 2.5,
  snowDepthMidCm: 110,
  windSpeedMidKmh: 20,
  windGustMidKmh: 40,
  snowLineM: 1800,
  snowfallSummitHourly: null,
  syncedAt: '2027-01-15T06:00:00.000Z',
  ...over,
});
const rows = (db: Db, sql: string) => db.prepare(sql).raw().all();

describe('the weather repository', () => {
  it('writes days and reads them back whole, by resort then date, within the dates', () => {
    const weather = new WeatherRepository(store.db);
    const days = [
      day('vail', '2027-01-14', 3),
      day('alta', '2027-01-15', 1, { snowfallSummitHourly: '0,1' }),
      day('alta', '2027-01-14'),
      day('vail', '2027-01-16'),
    ];
    weather.write(days);
    expect(weather.version).toBe(1);
    expect(weather.daysOf(['vail', 'alta'], '2027-01-14', '2027-01-15')).toEqual([days[2], days[1], days[0]]);
    expect(weather.daysOf(['taos'], '2027-01-01', '2027-12-31')).toEqual([]);
    // A day written again replaces the first.
    weather.write([day('vail', '2027-01-14', 9)]);
    expect(weather.version).toBe(2);
    expect(weather.daysOf(['vail'], '2027-01-14', '2027-01-14').map((d) => d.snowfallSummitCm)).toEqual([9]);
  });

  it('each resort’s newest day with measurable snow since `from`, before `before`', () => {
    const weather = new WeatherRepository(store.db);
    weather.write([
      day('alta', '2027-01-01', 5),
      day('alta', '2027-01-05', 2),
      day('alta', '2027-01-06', 0.5),
      day('alta', '2027-01-10', 8),
      day('vail', '2027-01-02', 1.9),
      day('taos', '2026-12-31', 30),
    ]);
    expect(weather.lastSnowfalls(['alta', 'vail', 'taos'], '2027-01-01', '2027-01-10', 2)).toEqual([{ resortId: 'alta', date: '2027-01-05', cm: 2 }]);
    expect(weather.lastSnowfalls(['alta', 'vail'], '2027-01-01', '2027-01-11', 1)).toEqual([
      { resortId: 'alta', date: '2027-01-10', cm: 8 },
      { resortId: 'vail', date: '2027-01-02', cm: 1.9 },
    ]);
    expect(weather.lastSnowfalls(['alta'], '2027-01-01', '2027-01-05', 1)).toEqual([{ resortId: 'alta', date: '2027-01-01', cm: 5 }]);
    expect(weather.lastSnowfalls(['alta'], '2027-01-02', '2027-01-05', 1)).toEqual([]);
  });

  it('covering, missing and pruning: which resorts have both days of a window', () => {
    const weather = new WeatherRepository(store.db);
    weather.write([day('alta', '2027-01-01'), day('alta', '2027-01-07'), day('vail', '2027-01-01'), day('taos', '2027-01-07'), day('vail', '2026-12-31')]);
    expect(weather.resortsCovering('2027-01-01', '2027-01-07')).toBe(2);
    expect(weather.resortsCovering('2027-01-01', '2027-01-02')).toBe(0);
    expect(weather.resortsMissing('2027-01-01', '2027-01-07')).toEqual(['taos', 'vail']);
    expect(weather.resortsMissing('2027-01-01', '2027-01-01')).toEqual(['alta', 'taos', 'vail']);
    weather.prune('2027-01-01');
    expect(rows(store.db, 'SELECT resort_id, date FROM daily_weather ORDER BY 1, 2')).toEqual([
      ['alta', '2027-01-01'],
      ['alta', '2027-01-07'],
      ['taos', '2027-01-07'],
      ['vail', '2027-01-01'],
    ]);
  });

  it('snowfall totals per resort over a window, with its biggest day (the first of equals); kept until the next write', () => {
    const weather = new WeatherRepository(store.db);
    weather.write([
      day('alta', '2027-01-01', 5),
      day('alta', '2027-01-02', 7.25),
      day('alta', '2027-01-03', 7.25),
      day('alta', '2027-01-09', 50),
      day('vail', '2027-01-02', 0),
    ]);
    const totals = weather.snowfallTotals('2027-01-01', '2027-01-08');
    expect(totals).toEqual([
      { resortId: 'alta', days: 3, totalCm: 19.5, maxDayCm: 7.25, maxDayDate: '2027-01-02' },
      { resortId: 'vail', days: 1, totalCm: 0, maxDayCm: 0, maxDayDate: '2027-01-02' },
    ]);
    expect(weather.snowfallTotals('2027-01-01', '2027-01-08')).toBe(totals);
    expect(weather.snowfallTotals('2027-01-02', '2027-01-09')[0]).toEqual({ resortId: 'alta', days: 3, totalCm: 64.5, maxDayCm: 50, maxDayDate: '2027-01-09' });
    weather.write([day('vail', '2027-01-03', 4)]);
    const after = weather.snowfallTotals('2027-01-01', '2027-01-08');
    expect(after[1]).toEqual({ resortId: 'vail', days: 2, totalCm: 4, maxDayCm: 4, maxDayDate: '2027-01-03' });
    // changed() (a sync run's publish) forgets them too.
    weather.changed();
    expect(weather.version).toBe(3);
    expect(weather.snowfallTotals('2027-01-01', '2027-01-08')).not.toBe(after);
  });

  it('keeps the totals of 65 windows; the 66th forgets them all', () => {
    const weather = new WeatherRepository(store.db);
    // Windows that differ only in their last bound's text: each a key of its own.
    const window = (n: number) => weather.snowfallTotals('2027-01-01', `2027-02-01#${n}`);
    const first = window(0);
    for (let n = 1; n < 65; n++) window(n);
    expect(window(0)).toBe(first);
    window(65);
    expect(window(0)).not.toBe(first);
  });
});

describe('the sync repository', () => {
  it('numbers runs upwards, never below the cluster’s lowest; lists the newest first; the last finished', () => {
    const runs = new SyncRepository(store.db);
    expect(runs.lastFinished()).toBeNull();
    expect(runs.startRun('MANUAL', 'simulated', '2027-01-15T10:00:00.000Z', 3)).toBe(1);
    expect(runs.startRun('SCHEDULED', 'open-meteo', '2027-01-15T11:00:00.000Z', 2)).toBe(2);
    expect(runs.startRun('MANUAL', 'simulated', '2027-01-15T12:00:00.000Z', 1, 10)).toBe(10);
    expect(runs.startRun('MANUAL', 'simulated', '2027-01-15T12:30:00.000Z', 1, 5)).toBe(11);
    runs.finish(2, '2027-01-15T11:05:00.000Z', 'PARTIAL', 1, 1, 'one failed');
    expect(runs.list(2).map((r) => r.id)).toEqual([11, 10]);
    expect(runs.list(10).map((r) => r.id)).toEqual([11, 10, 2, 1]);
    const second = {
      id: 2,
      trigger: 'SCHEDULED',
      provider: 'open-meteo',
      startedAt: '2027-01-15T11:00:00.000Z',
      finishedAt: '2027-01-15T11:05:00.000Z',
      status: 'PARTIAL',
      resortsTotal: 2,
      resortsUpdated: 1,
      resortsFailed: 1,
      error: 'one failed',
    };
    expect(runs.list(10)[2]).toEqual(second);
    expect(runs.lastFinished()).toEqual(second);
    expect(runs.list(10)[0]).toMatchObject({ status: 'RUNNING', finishedAt: null, resortsUpdated: 0, resortsFailed: 0, error: null });
  });

  it('stages days and lifts, and publishes a run’s all at once: lifts replaced per resort, old days pruned, its staging dropped', () => {
    const runs = new SyncRepository(store.db);
    const weather = new WeatherRepository(store.db);
    weather.write([day('alta', '2026-11-01'), day('alta', '2026-11-20'), day('taos', '2027-01-14', 1)]);
    store.db.prepare("INSERT INTO live_lifts VALUES ('taos', 1, 'Old', 'OPEN', 'liftie', 'x'), ('vail', 1, 'Kept', 'CLOSED', 'liftie', 'x')").run();
    const run = runs.startRun('MANUAL', 'simulated', '2027-01-15T12:00:00.000Z', 3);
    const other = runs.startRun('MANUAL', 'simulated', '2027-01-15T12:00:00.000Z', 3);
    runs.stage(run, 'taos', [day('taos', '2027-01-14', 4), day('taos', '2027-01-15', 2)], [
      { name: 'Kachina', status: 'OPEN' },
      { name: 'Lift 4', status: 'HOLD' },
    ] as never);
    runs.stage(run, 'alta', [day('alta', '2027-01-15', 6)], null);
    runs.stage(other, 'vail', [day('vail', '2027-01-15', 1)], [{ name: 'Other', status: 'OPEN' }] as never);
    expect(rows(store.db, 'SELECT run_id, resort_id, ordinal, name, status FROM sync_staging_lifts ORDER BY 1, 2, 3')).toEqual([
      [run, 'taos', 1, 'Kachina', 'OPEN'],
      [run, 'taos', 2, 'Lift 4', 'HOLD'],
      [other, 'vail', 1, 'Other', 'OPEN'],
    ]);
    // Staged, not served.
    expect(weather.daysOf(['taos'], '2027-01-15', '2027-01-15')).toEqual([]);
    runs.publish(run, '2026-11-15', 'liftie', '2027-01-15T12:01:00.000Z');
    expect(weather.daysOf(['taos', 'alta'], '2026-01-01', '2027-12-31')).toEqual([
      day('alta', '2026-11-20'),
      day('alta', '2027-01-15', 6),
      day('taos', '2027-01-14', 4),
      day('taos', '2027-01-15', 2),
    ]);
    expect(rows(store.db, 'SELECT * FROM live_lifts ORDER BY 1, 2')).toEqual([
      ['taos', 1, 'Kachina', 'OPEN', 'liftie', '2027-01-15T12:01:00.000Z'],
      ['taos', 2, 'Lift 4', 'HOLD', 'liftie', '2027-01-15T12:01:00.000Z'],
      ['vail', 1, 'Kept', 'CLOSED', 'liftie', 'x'],
    ]);
    // Only the published run's staging is gone.
    expect(rows(store.db, 'SELECT DISTINCT run_id FROM sync_staging UNION ALL SELECT DISTINCT run_id FROM sync_staging_lifts')).toEqual([[other], [other]]);
    runs.discard(other);
    expect(rows(store.db, 'SELECT (SELECT count(*) FROM sync_staging) + (SELECT count(*) FROM sync_staging_lifts)')).toEqual([[0]]);
  });

  it('at start-up, runs left running failed and all staging dropped', () => {
    const runs = new SyncRepository(store.db);
    const done = runs.startRun('MANUAL', 'simulated', '2027-01-15T10:00:00.000Z', 1);
    runs.finish(done, '2027-01-15T10:01:00.000Z', 'SUCCEEDED', 1, 0, null);
    const a = runs.startRun('MANUAL', 'simulated', '2027-01-15T11:00:00.000Z', 1);
    runs.startRun('MANUAL', 'simulated', '2027-01-15T11:30:00.000Z', 1);
    runs.stage(a, 'alta', [day('alta', '2027-01-15')], [{ name: 'x', status: 'OPEN' }] as never);
    expect(runs.recoverInterrupted('2027-01-15T12:00:00.000Z')).toBe(2);
    expect(runs.list(3).map((r) => [r.id, r.status, r.finishedAt, r.error])).toEqual([
      [3, 'FAILED', '2027-01-15T12:00:00.000Z', 'interrupted: the process stopped during the run'],
      [2, 'FAILED', '2027-01-15T12:00:00.000Z', 'interrupted: the process stopped during the run'],
      [1, 'SUCCEEDED', '2027-01-15T10:01:00.000Z', null],
    ]);
    expect(rows(store.db, 'SELECT (SELECT count(*) FROM sync_staging) + (SELECT count(*) FROM sync_staging_lifts)')).toEqual([[0]]);
    expect(runs.recoverInterrupted('2027-01-15T12:00:00.000Z')).toBe(0);
  });
});
