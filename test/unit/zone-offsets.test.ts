import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intlOffsetMinutes, localHour } from '../../src/domain/local-time.js';
import { OFFSET_SPAN, offsetIn, scanOffsets } from '../../src/domain/zone-offsets.js';

/**
 * A zone's offsets as the database keeps them agree with Intl at every instant of the span: zones
 * with half- and quarter-hour offsets, southern summers, a negative summer time (Dublin), a zone
 * that paused summer time for Ramadan (Casablanca), and ones that changed their rules.
 */
const ZONES = [
  'America/Denver',
  'America/Santiago',
  'Europe/Dublin',
  'Africa/Casablanca',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'America/Argentina/Salta',
  'Asia/Tokyo',
  'Etc/UTC',
  'Africa/Maseru',
];
const MINUTE = 60_000;

describe('zone offsets', () => {
  const scanned = new Map(ZONES.map((zone) => [zone, scanOffsets((ms) => intlOffsetMinutes(zone, ms), OFFSET_SPAN.start, OFFSET_SPAN.end)]));

  it('agree with Intl at any minute of 1970–2070, and on both sides of every change', () => {
    for (const [zone, offsets] of scanned) {
      for (const at of offsets.starts.slice(1)) {
        expect([zone, at, offsetIn(offsets, at - MINUTE)]).toEqual([zone, at, intlOffsetMinutes(zone, at - MINUTE)]);
        expect([zone, at, offsetIn(offsets, at)]).toEqual([zone, at, intlOffsetMinutes(zone, at)]);
      }
    }
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: OFFSET_SPAN.start / MINUTE, max: OFFSET_SPAN.end / MINUTE - 1 }), (zone, minute) => {
        const ms = minute * MINUTE;
        expect(offsetIn(scanned.get(zone)!, ms)).toBe(intlOffsetMinutes(zone, ms));
      }),
      { numRuns: 5000 },
    );
  });

  it("Intl's offsets as known values: zero, east and west, whole and half hours", () => {
    const jan = Date.parse('2027-01-15T12:00:00Z');
    const jul = Date.parse('2027-07-15T12:00:00Z');
    expect(intlOffsetMinutes('Etc/UTC', jan)).toBe(0);
    expect(intlOffsetMinutes('Europe/London', jan)).toBe(0);
    expect(intlOffsetMinutes('Europe/London', jul)).toBe(60);
    expect(intlOffsetMinutes('America/Denver', jan)).toBe(-420);
    expect(intlOffsetMinutes('Asia/Kolkata', jan)).toBe(330);
    expect(intlOffsetMinutes('Asia/Kathmandu', jan)).toBe(345);
    expect(intlOffsetMinutes('America/St_Johns', jan)).toBe(-210);
    // Local mean time before 1900 has seconds (-00:01:15 in London): whole minutes are kept.
    expect(intlOffsetMinutes('Europe/London', Date.UTC(1800, 0, 1))).toBe(-1);
  });

  it('know where they end: outside the span the caller asks Intl', () => {
    const denver = scanned.get('America/Denver')!;
    expect(offsetIn(denver, OFFSET_SPAN.start - 1)).toBeUndefined();
    expect(offsetIn(denver, OFFSET_SPAN.end)).toBeUndefined();
    expect(offsetIn(denver, OFFSET_SPAN.end - 1)).toBe(intlOffsetMinutes('America/Denver', OFFSET_SPAN.end - 1));
    // Two changes a year in Denver, none in Tokyo since 1970.
    expect(denver.starts.length).toBeGreaterThan(180);
    expect(scanned.get('Asia/Tokyo')!.starts).toEqual([OFFSET_SPAN.start]);
  });

  it('give local hours equal to Intl’s, the offset written as ISO 8601 wants it', () => {
    const at = new Date('2027-01-15T05:00:00Z');
    expect(localHour(at, 'Pacific/Chatham', scanned.get('Pacific/Chatham'))).toEqual({ date: '2027-01-15', hour: 18, iso: '2027-01-15T18:45:00+13:45' });
    expect(localHour(at, 'America/Santiago', scanned.get('America/Santiago'))).toEqual({ date: '2027-01-15', hour: 2, iso: '2027-01-15T02:00:00-03:00' });
    expect(localHour(new Date('2027-07-01T12:00:00Z'), 'Etc/UTC', scanned.get('Etc/UTC'))).toEqual({
      date: '2027-07-01',
      hour: 12,
      iso: '2027-07-01T12:00:00+00:00',
    });
  });
});
