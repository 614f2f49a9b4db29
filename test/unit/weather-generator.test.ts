import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { simulateDays, snowLine } from '../../src/domain/weather/generator.js';
import { coldestDay, normalMeanTemp, seasonAnchorMonthDay, winterness } from '../../src/domain/weather/climate.js';
import { loadResortCatalogue } from '../../src/data/db/sources/resort-source.js';
import { addDays } from '../../src/domain/dates.js';
import { plannedSeason } from '../../src/domain/season.js';
import type { DailyWeather } from '../../src/domain/weather/daily.js';

const resorts = loadResortCatalogue();
const site = (id: string) => {
  const r = resorts.find((x) => x.id === id)!;
  return { id: r.id, lat: r.lat, baseElevation: r.baseElevation, summitElevation: r.summitElevation };
};

// The exact answers first: they are cheap and catch most changes, and under Stryker, which stops a
// mutant's run at its first failing test, they kill most mutants before the loops over every resort run.
describe('reproducible on every machine', () => {
  // The generator is seeded by resort and date only: these are the exact answers every machine
  // computes (a change to the simulation changes them, and should be deliberate).
  const digest = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex');
  /** A day without its mid-mountain fields: what the generator gave before it had them. */
  const baseAndSummit = ({
    midTempMin: _a,
    midTempMax: _b,
    snowfallMidCm: _c,
    snowDepthMidCm: _d,
    windSpeedMidKmh: _e,
    windGustMidKmh: _f,
    ...rest
  }: DailyWeather) => rest;

  it('gives these exact days for a northern and a southern winter', () => {
    const vail = { id: 'vail', lat: 39.6061, baseElevation: 2475, summitElevation: 3527 };
    const days = simulateDays(vail, '2026-12-01', '2027-03-31', '2027-03-25');
    expect(days.find((d) => d.date === '2027-01-15')).toEqual({
      date: '2027-01-15',
      baseTempMin: -15.2,
      baseTempMax: -6.2,
      summitTempMin: -19.5,
      summitTempMax: -12.3,
      precipitationMm: 0,
      precipitationProbability: 0,
      snowfallBaseCm: 0,
      snowfallSummitCm: 0,
      snowDepthBaseCm: 139.5,
      snowDepthSummitCm: 182.1,
      seasonSnowfallCm: 485.7,
      windSpeedBaseKmh: 10.3,
      windGustBaseKmh: 15,
      windSpeedSummitKmh: 22.6,
      windGustSummitKmh: 36.3,
      windDirectionDeg: 264,
      snowLineM: 141,
      midTempMin: -17.3,
      midTempMax: -9.2,
      snowfallMidCm: 0,
      snowDepthMidCm: 164,
      windSpeedMidKmh: 16.5,
      windGustMidKmh: 25.2,
    });
    expect(digest(days)).toBe('107a031a1708870f9d587bcb51884f34674c4e9ea3aef3766a1bc49e55bd158b');
    // Mid-mountain added nothing to what base and summit draw: their values are those of before it.
    expect(digest(days.map(baseAndSummit))).toBe('267ab7b1ed7b533c9f31793a46525f49eb3fab6e9b444f985ad839b516e210d9');
    const thredbo = { id: 'thredbo', lat: -36.5, baseElevation: 1365, summitElevation: 2037 };
    const south = simulateDays(thredbo, '2027-06-01', '2027-08-31');
    expect(digest(south)).toBe('4557393d8034cf2b761e63b549b6bab0c4d638a9a5111250d4d461a43c562e48');
    expect(digest(south.map(baseAndSummit))).toBe('2c4a5adde8a26ff1ac51c815828e66f7d696b6e4b7846474308a2d9ee59876b3');
  });

  it('gives these exact first days of a season, every resort (a season starts dry, calm and without snow)', () => {
    const first = resorts.map((r) =>
      simulateDays(
        { id: r.id, lat: r.lat, baseElevation: r.baseElevation, summitElevation: r.summitElevation },
        r.lat < 0 ? '2027-02-01' : '2026-08-01',
        r.lat < 0 ? '2027-02-02' : '2026-08-02',
      ),
    );
    expect(digest(first)).toBe('0dd3b23b94c6a86a22899457fc619f3b289f4e7302f38e976e5fc3583cb6e5bb');
    expect(digest(first.map((days) => days.map(baseAndSummit)))).toBe('9404fc29b2a989053deb2fcbdcc12b188a82b8b91757deddbd52dd2821ffe443');
  });

  it('puts the snow line where the day’s mean reaches +1 °C at 5 °C per km, never below sea level', () => {
    expect(snowLine(1000, 1)).toBe(1000);
    expect(snowLine(1000, 6)).toBe(2000);
    expect(snowLine(1000, -4)).toBe(0);
    expect(snowLine(1000, -3.5)).toBe(100);
  });

  it('climate: the coldest day by hemisphere, winterness from 1 to 0, 5 °C colder per km', () => {
    expect([coldestDay(45), coldestDay(-45), coldestDay(0)]).toEqual([20, 201, 20]);
    expect(winterness(45, 20)).toBeCloseTo(1, 9);
    expect(winterness(-45, 201)).toBeCloseTo(1, 9);
    expect(winterness(45, 20 + 365.25 / 2)).toBeCloseTo(0, 9);
    expect(normalMeanTemp(45, 0, 20) - normalMeanTemp(45, 1000, 20)).toBeCloseTo(5, 9);
    // Sea level, mid-latitude January: 27 − 0.35·45 − (3 + 0.2·45).
    expect(normalMeanTemp(45, 0, 20)).toBeCloseTo(27 - 15.75 - 12, 9);
    expect(normalMeanTemp(-45, 0, 201)).toBeCloseTo(27 - 15.75 - 12, 9);
    expect([seasonAnchorMonthDay(45), seasonAnchorMonthDay(-45)]).toEqual(['08-01', '02-01']);
  });
});

describe('weather generator', () => {
  it('is deterministic: the same resort and dates give the same days', () => {
    expect(simulateDays(site('vail'), '2027-01-01', '2027-01-31')).toEqual(simulateDays(site('vail'), '2027-01-01', '2027-01-31'));
  });

  it('gives a date the same weather whatever window it is asked in', () => {
    const wide = simulateDays(site('zermatt'), '2026-12-01', '2027-02-28');
    const narrow = simulateDays(site('zermatt'), '2027-01-10', '2027-01-20');
    expect(narrow).toEqual(wide.filter((d) => d.date >= '2027-01-10' && d.date <= '2027-01-20'));
    // A window that starts before the season anchor (Aug 1 north, Feb 1 south) runs the previous
    // season too: the anchor resets the snowpack, so its days are still the same.
    for (const [id, from, since] of [
      ['vail', '2026-06-01', '2026-09-01'],
      ['thredbo', '2026-12-01', '2027-03-01'],
    ] as const) {
      const across = simulateDays(site(id), from, '2027-09-30');
      expect(simulateDays(site(id), since, '2027-09-30')).toEqual(across.filter((d) => d.date >= since));
    }
  });

  // The snowpack rule, day by day, from the days' own numbers (each rounded to 0.1, hence the
  // tolerance): settle 2.5 %, add the day's snow (and at the base 2.5 cm of machine snow on cold
  // nights from three weeks before opening to closing, up to 60 cm), melt 1.5 cm per degree of
  // mean above 0 °C and 0.1 cm per mm of rain; rain is the precipitation of a day without snow.
  it('keeps the snowpack by its rule: settling, new and machine snow, melt by warmth and by rain', () => {
    const TOLERANCE = 0.25;
    const wrong: string[] = [];
    let rainOnSnow = 0;
    let coldOutsideWindow = 0;
    let madeSnow = 0;
    let madeOnClosingDay = 0;
    // The catalogue, and two made-up sites with cold nights outside the snowmaking window.
    const sites = [
      ...resorts.map((r) => ({ id: r.id, lat: r.lat, baseElevation: r.baseElevation, summitElevation: r.summitElevation })),
      { id: 'test-glacier', lat: 46, baseElevation: 2900, summitElevation: 3800 },
      { id: 'test-arctic', lat: 68.5, baseElevation: 300, summitElevation: 900 },
    ];
    for (const s of sites) {
      const r = s;
      const vertical = s.summitElevation - s.baseElevation;
      const days = simulateDays(s, '2026-08-02', '2027-07-31');
      for (let i = 1; i < days.length; i++) {
        const [y, d] = [days[i - 1]!, days[i]!];
        if (d.date.slice(5) === seasonAnchorMonthDay(s.lat)) continue;
        const season = plannedSeason(d.date, s.lat, s.summitElevation);
        const inWindow = d.date >= addDays(season.opens, -21) && d.date <= season.closes;
        // Skip the days whose rounding hides which side of a threshold they are on.
        if (inWindow && (Math.abs(d.baseTempMin + 2) < 0.06 || Math.abs(y.snowDepthBaseCm - 60) < 0.06)) continue;
        const machine = inWindow && d.baseTempMin <= -2 && y.snowDepthBaseCm < 60 ? 2.5 : 0;
        const baseRain = d.snowfallBaseCm > 0 ? 0 : d.precipitationMm;
        const summitRain = d.snowfallSummitCm > 0 ? 0 : d.precipitationMm * (1 + 0.25 * (vertical / 1000));
        const pack = (depth: number, snow: number, min: number, max: number, rain: number) =>
          Math.max(0, depth * 0.975 + snow - 1.5 * Math.max(0, (min + max) / 2) - 0.1 * rain);
        const base = pack(y.snowDepthBaseCm, d.snowfallBaseCm + machine, d.baseTempMin, d.baseTempMax, baseRain);
        const summit = pack(y.snowDepthSummitCm, d.snowfallSummitCm, d.summitTempMin, d.summitTempMax, summitRain);
        if (Math.abs(d.snowDepthBaseCm - base) > TOLERANCE) wrong.push(`${r.id} ${d.date} base ${d.snowDepthBaseCm}, rule ${base.toFixed(2)}`);
        if (Math.abs(d.snowDepthSummitCm - summit) > TOLERANCE) wrong.push(`${r.id} ${d.date} summit ${d.snowDepthSummitCm}, rule ${summit.toFixed(2)}`);
        if (summitRain >= 5 && summit > 1) rainOnSnow++;
        if (machine) madeSnow++;
        if (machine && d.date === season.closes) madeOnClosingDay++;
        if (!inWindow && d.baseTempMin <= -2.1 && y.snowDepthBaseCm < 59.9) coldOutsideWindow++;
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    // The cases the rule's parts are about do occur, so each part is checked.
    expect(rainOnSnow).toBeGreaterThan(50);
    expect(madeSnow).toBeGreaterThan(100);
    expect(madeOnClosingDay).toBeGreaterThan(0);
    expect(coldOutsideWindow).toBeGreaterThan(0);
  });

  it('differs between resorts and between dates', () => {
    const a = simulateDays(site('vail'), '2027-01-01', '2027-01-31');
    const b = simulateDays(site('beaver-creek'), '2027-01-01', '2027-01-31');
    expect(a.map((d) => d.baseTempMax)).not.toEqual(b.map((d) => d.baseTempMax));
    expect(new Set(a.map((d) => d.baseTempMax)).size).toBeGreaterThan(10);
  });

  it('puts snow on southern resorts in July and northern ones in January, not the other way round', () => {
    const north = simulateDays(site('whistler-blackcomb'), '2026-08-01', '2027-07-31');
    const south = simulateDays(site('thredbo'), '2026-08-01', '2027-07-31');
    const depth = (days: typeof north, month: string) => days.filter((d) => d.date.startsWith(month)).reduce((n, d) => n + d.snowDepthBaseCm, 0);
    expect(depth(north, '2027-01')).toBeGreaterThan(depth(north, '2027-07') + 100);
    expect(depth(south, '2027-07')).toBeGreaterThan(depth(south, '2027-01') + 100);
  });

  it('marks days from today on as forecasts with a probability, and past days as certain', () => {
    const days = simulateDays(site('vail'), '2027-01-01', '2027-01-20', '2027-01-14');
    for (const d of days.filter((x) => x.date < '2027-01-14')) expect([0, 100]).toContain(d.precipitationProbability);
    const forecast = days.filter((x) => x.date >= '2027-01-14');
    expect(forecast.some((d) => d.precipitationProbability > 0 && d.precipitationProbability < 100)).toBe(true);
    const wet = forecast.filter((d) => d.precipitationMm > 0);
    expect(wet.length).toBeGreaterThan(0);
    for (const d of wet) expect(d.precipitationProbability).toBeGreaterThanOrEqual(45);
  });
  // Last: the costliest (a year for every resort).
  it('is physically sane over a year for every resort', () => {
    const violations: string[] = [];
    const check = (ok: boolean, what: string) => void (ok || violations.push(what));
    for (const r of resorts) {
      const s = { id: r.id, lat: r.lat, baseElevation: r.baseElevation, summitElevation: r.summitElevation };
      const year = simulateDays(s, '2026-08-01', '2027-07-31');
      check(year.length === 365, `${r.id}: ${year.length} days`);
      for (const d of year) {
        const at = `${r.id} ${d.date}`;
        const baseMean = (d.baseTempMin + d.baseTempMax) / 2;
        const summitMean = (d.summitTempMin + d.summitTempMax) / 2;
        check(d.snowfallBaseCm === 0 || baseMean <= 3, `${at}: base snowfall at ${baseMean} °C`);
        check(d.snowfallSummitCm === 0 || summitMean <= 3, `${at}: summit snowfall at ${summitMean} °C`);
        check(d.snowDepthBaseCm >= 0 && d.snowDepthSummitCm >= 0, `${at}: negative snow depth`);
        check(d.baseTempMin <= d.baseTempMax && d.summitTempMin <= d.summitTempMax, `${at}: min above max`);
        check(summitMean <= baseMean + 0.05, `${at}: summit warmer than base`);
        check(d.precipitationMm >= 0, `${at}: negative precipitation`);
        check(d.windGustSummitKmh >= d.windSpeedSummitKmh && d.windGustBaseKmh >= d.windSpeedBaseKmh, `${at}: gust below wind`);
        check(d.windDirectionDeg >= 0 && d.windDirectionDeg < 360, `${at}: wind direction ${d.windDirectionDeg}`);
      }
      // Midwinter in the resort's own hemisphere has snow on the ground at the summit.
      const midwinter = year.filter((d) => d.date.startsWith(r.lat < 0 ? '2027-07' : '2027-01'));
      const avgDepth = midwinter.reduce((n, d) => n + d.snowDepthSummitCm, 0) / midwinter.length;
      check(avgDepth > 10, `${r.id}: midwinter summit depth ${avgDepth.toFixed(1)} cm`);
      check(
        midwinter.some((d) => d.snowfallSummitCm > 0),
        `${r.id}: no snowfall in midwinter`,
      );
    }
    expect(violations).toEqual([]);
  });
});
