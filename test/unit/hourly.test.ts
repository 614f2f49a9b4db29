import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { DailyWeather } from '../../src/domain/weather/daily.js';
import { formatHours, hoursOf, parseHours, snowfallBefore, snowfallOverHours, splitDailySnowfall } from '../../src/domain/weather/hourly.js';
import { isTimeZone, localDate, localHour } from '../../src/domain/local-time.js';

/** The hourly windows against a series written out by hand. */

const GOLDEN_SPLIT = '0.8,0.4,0.5,0.8,0.5,0.3,0.4,0.7,0.7,0.4,0.8,0.6,0.7,0.9,0.8,0.6,0.8,0.4,0.8,0.4,0,0,0,0';

const day = (date: string, hours: number[]) =>
  ({ date, snowfallSummitCm: hours.reduce((a, b) => a + b, 0), snowfallSummitHourly: formatHours(hours) }) as DailyWeather;
// 13 January: 2 cm an hour from 20:00. 14 January: 1 cm an hour 00:00–05:59, 3 cm 12:00–12:59.
// 15 January: 0.5 cm an hour 06:00–09:59. 16 January (forecast): 1 cm an hour all day.
const series = [
  day(
    '2027-01-13',
    Array.from({ length: 24 }, (_, h) => (h >= 20 ? 2 : 0)),
  ),
  day(
    '2027-01-14',
    Array.from({ length: 24 }, (_, h) => (h < 6 ? 1 : h === 12 ? 3 : 0)),
  ),
  day(
    '2027-01-15',
    Array.from({ length: 24 }, (_, h) => (h >= 6 && h < 10 ? 0.5 : 0)),
  ),
  day(
    '2027-01-16',
    Array.from({ length: 24 }, () => 1),
  ),
];

describe('hourly snowfall windows', () => {
  it('24 h before 15 January 08:00 is 14 January 08:00 to 07:59: 3 + 1 cm', () => {
    expect(snowfallBefore('r', series, '2027-01-15', 8, 24)).toBe(4);
  });

  it('24 h before 15 January 03:00 reaches back into the 14th’s early hours: 3 of 6 hours, the 3 cm hour', () => {
    expect(snowfallBefore('r', series, '2027-01-15', 3, 24)).toBe(3 + 3);
  });

  it('72 h before 15 January 10:00 covers all of the 13th’s evening and the 14th and 15th so far', () => {
    expect(snowfallBefore('r', series, '2027-01-15', 10, 72)).toBe(8 + 9 + 2);
    expect(snowfallBefore('r', series, '2027-01-15', 0, 72)).toBe(8 + 9);
  });

  it('the 48 h from 15 January 09:00 take one hour of the 15th and the whole 16th (missing days count as none)', () => {
    expect(snowfallOverHours('r', series, '2027-01-15', 9, 48)).toBe(0.5 + 24);
  });

  it('stored hours must be 24 finite numbers, none negative', () => {
    const ok = Array.from({ length: 24 }, () => '0.5');
    expect(parseHours(ok.join(','))).toEqual(Array(24).fill(0.5));
    for (const bad of [['-0.1', ...ok.slice(1)], ['x', ...ok.slice(1)], [...ok.slice(1), 'Infinity'], ok.slice(1)])
      expect(parseHours(bad.join(','))).toBeNull();
    expect(parseHours('')).toBeNull();
    expect(parseHours(null)).toBeNull();
  });

  it('stored hours are read back; broken ones fall back to the split of the total', () => {
    expect(parseHours('1,2')).toBeNull();
    expect(parseHours(null)).toBeNull();
    expect(parseHours(Array(24).fill('x').join(','))).toBeNull();
    expect(parseHours(Array(24).fill('-1').join(','))).toBeNull();
    expect(parseHours(formatHours(Array(24).fill(0.25)))).toEqual(Array(24).fill(0.3));
    const broken = { date: '2027-01-15', snowfallSummitCm: 5, snowfallSummitHourly: 'garbage' } as DailyWeather;
    expect(hoursOf('r', broken).reduce((a, b) => a + b, 0)).toBeCloseTo(5, 9);
  });

  it("a day's hours are worked out again when anything they come from changes", () => {
    const d = { date: '2027-01-15', snowfallSummitCm: 5, snowfallSummitHourly: null } as unknown as DailyWeather;
    const first = hoursOf('r', d);
    expect(hoursOf('r', d)).toBe(first);
    expect(hoursOf('other', d)).toEqual(splitDailySnowfall('other', '2027-01-15', 5));
    expect(hoursOf('other', d)).not.toEqual(first);
    d.snowfallSummitCm = 7;
    expect(hoursOf('other', d)).toEqual(splitDailySnowfall('other', '2027-01-15', 7));
    d.date = '2027-01-16';
    expect(hoursOf('other', d)).toEqual(splitDailySnowfall('other', '2027-01-16', 7));
    d.snowfallSummitHourly = formatHours(Array(24).fill(0.5));
    expect(hoursOf('other', d)).toEqual(Array(24).fill(0.5));
  });
});

describe("the generator's hours", () => {
  it('add up to the daily total in tenths, in one spell of 4 to 20 hours, the same every time', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 3000 }), (id, tenths) => {
        const hours = splitDailySnowfall(id, '2027-01-15', tenths / 10);
        expect(hours).toHaveLength(24);
        expect(Math.round(hours.reduce((a, b) => a + b, 0) * 10)).toBe(tenths);
        for (const h of hours) expect(Math.round(h * 10)).toBeCloseTo(h * 10, 9);
        const snowy = hours.map((h, i) => (h > 0 ? i : -1)).filter((i) => i >= 0);
        if (snowy.length) expect(snowy.at(-1)! - snowy[0]! + 1).toBeLessThanOrEqual(20);
        expect(splitDailySnowfall(id, '2027-01-15', tenths / 10)).toEqual(hours);
      }),
    );
    expect(splitDailySnowfall('vail', '2027-01-15', 0)).toEqual(Array(24).fill(0));
    expect(splitDailySnowfall('vail', '2027-01-15', -1)).toEqual(Array(24).fill(0));
    // The exact hours every machine computes for one day (largest remainders placed in order).
    expect(splitDailySnowfall('vail', '2027-01-15', 12.3).join(',')).toBe(GOLDEN_SPLIT);
    for (const h of splitDailySnowfall('zermatt', '2027-02-01', 55)) expect(h).toBeGreaterThanOrEqual(0);
    expect(splitDailySnowfall('vail', '2027-01-15', 30)).not.toEqual(splitDailySnowfall('aspen', '2027-01-15', 30));
  });
});

describe('local time', () => {
  it('a resort in Japan at 23:00 UTC is already on the next local day', () => {
    expect(localHour(new Date('2027-01-15T23:00:00Z'), 'Asia/Tokyo')).toEqual({ date: '2027-01-16', hour: 8, iso: '2027-01-16T08:00:00+09:00' });
  });

  it('offsets west, half-hours, zero and daylight-saving time', () => {
    expect(localHour(new Date('2027-01-15T05:00:00Z'), 'America/Denver')).toEqual({ date: '2027-01-14', hour: 22, iso: '2027-01-14T22:00:00-07:00' });
    expect(localHour(new Date('2027-07-15T05:00:00Z'), 'America/Denver').iso).toBe('2027-07-14T23:00:00-06:00');
    expect(localHour(new Date('2027-01-15T20:00:00Z'), 'Asia/Kolkata').iso).toBe('2027-01-16T01:30:00+05:30');
    expect(localHour(new Date('2027-01-15T12:00:00Z'), 'Europe/London').iso).toBe('2027-01-15T12:00:00+00:00');
    expect(localHour(new Date('2027-01-15T11:00:00Z'), 'Pacific/Auckland').iso).toBe('2027-01-16T00:00:00+13:00');
    expect(localDate(new Date('2027-01-15T10:59:59Z'), 'Pacific/Auckland')).toBe('2027-01-15');
  });

  it('daylight-saving change days: the skipped hour does not exist, the repeated one is the same clock hour twice', () => {
    // Denver springs forward at 02:00 on 14 March 2027: 01:xx MST is followed by 03:xx MDT.
    expect(localHour(new Date('2027-03-14T08:30:00Z'), 'America/Denver')).toEqual({ date: '2027-03-14', hour: 1, iso: '2027-03-14T01:30:00-07:00' });
    expect(localHour(new Date('2027-03-14T09:30:00Z'), 'America/Denver')).toEqual({ date: '2027-03-14', hour: 3, iso: '2027-03-14T03:30:00-06:00' });
    // And falls back at 02:00 on 7 November: 01:xx twice, an hour apart, with two offsets.
    expect(localHour(new Date('2027-11-07T07:30:00Z'), 'America/Denver')).toEqual({ date: '2027-11-07', hour: 1, iso: '2027-11-07T01:30:00-06:00' });
    expect(localHour(new Date('2027-11-07T08:30:00Z'), 'America/Denver')).toEqual({ date: '2027-11-07', hour: 1, iso: '2027-11-07T01:30:00-07:00' });
  });

  it('half- and quarter-hour zones: an hour starts on the local :30 or :45 and counts as the clock hour it falls in', () => {
    expect(localHour(new Date('2027-01-15T20:00:00Z'), 'Asia/Kolkata')).toEqual({ date: '2027-01-16', hour: 1, iso: '2027-01-16T01:30:00+05:30' });
    expect(localHour(new Date('2027-01-15T05:00:00Z'), 'Asia/Kathmandu')).toEqual({ date: '2027-01-15', hour: 10, iso: '2027-01-15T10:45:00+05:45' });
    expect(localHour(new Date('2027-07-15T00:00:00Z'), 'Australia/Adelaide')).toEqual({ date: '2027-07-15', hour: 9, iso: '2027-07-15T09:30:00+09:30' });
  });

  it('new snow counts clock hours: on the spring-forward day the 24 h before 03:00 are 03:00 the day before to 02:59, 23 real hours', () => {
    const dst = [
      day(
        '2027-03-13',
        Array.from({ length: 24 }, (_, h) => (h === 2 || h === 3 ? 1 : 0)),
      ),
      day(
        '2027-03-14',
        Array.from({ length: 24 }, (_, h) => (h === 0 || h === 3 ? 2 : 0)),
      ),
    ];
    // The 13th's 03:00 hour (1 cm) and the 14th's 00:00 hour (2 cm); not the 13th's 02:00 nor the 14th's 03:00.
    expect(snowfallBefore('dst', dst, '2027-03-14', 3, 24)).toBe(3);
  });

  it('a zone at GMT has the offset +00:00', () => {
    // An instant no other test asks for: the memo has not seen it.
    expect(localHour(new Date('2031-02-03T04:00:00Z'), 'Africa/Abidjan').iso).toBe('2031-02-03T04:00:00+00:00');
  });

  it('knows real zones only', () => {
    expect(isTimeZone('Europe/Zurich')).toBe(true);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
  });
});
