import { describe, expect, it } from 'vitest';
import { simulateDays } from '../src/domain/weather/generator.js';
import { loadResortCatalogue } from '../src/db/sources/resort-source.js';

const resorts = loadResortCatalogue();
const site = (id: string) => {
  const r = resorts.find((x) => x.id === id)!;
  return { id: r.id, lat: r.lat, baseElevation: r.baseElevation, summitElevation: r.summitElevation };
};

describe('weather generator', () => {
  it('is deterministic: the same resort and dates give the same days', () => {
    expect(simulateDays(site('vail'), '2027-01-01', '2027-01-31')).toEqual(simulateDays(site('vail'), '2027-01-01', '2027-01-31'));
  });

  it('gives a date the same weather whatever window it is asked in', () => {
    const wide = simulateDays(site('zermatt'), '2026-12-01', '2027-02-28');
    const narrow = simulateDays(site('zermatt'), '2027-01-10', '2027-01-20');
    expect(narrow).toEqual(wide.filter((d) => d.date >= '2027-01-10' && d.date <= '2027-01-20'));
  });

  it('differs between resorts and between dates', () => {
    const a = simulateDays(site('vail'), '2027-01-01', '2027-01-31');
    const b = simulateDays(site('beaver-creek'), '2027-01-01', '2027-01-31');
    expect(a.map((d) => d.baseTempMax)).not.toEqual(b.map((d) => d.baseTempMax));
    expect(new Set(a.map((d) => d.baseTempMax)).size).toBeGreaterThan(10);
  });

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
      check(midwinter.some((d) => d.snowfallSummitCm > 0), `${r.id}: no snowfall in midwinter`);
    }
    expect(violations).toEqual([]);
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
});
