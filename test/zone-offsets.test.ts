import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/data/db/open.js';
import { ZoneOffsetRepository } from '../src/data/repositories/zone-offsets.js';
import { offsetIn } from '../src/domain/zone-offsets.js';
import { privateDatabase } from './helpers/server.js';

describe('zone offsets', () => {
  it('are read once, when local time is first asked for, not when the repository is made (start-up)', () => {
    const executed: string[] = [];
    const db = openDatabase(privateDatabase('gateway-zones-'), { onStatement: (sql) => void executed.push(String(sql)) });
    try {
      const readsAll = () => executed.filter((sql) => /FROM zone_offsets ORDER BY zone/.test(sql)).length;
      const zones = new ZoneOffsetRepository(db);
      expect(readsAll()).toBe(0);
      const denver = zones.of('America/Denver')!;
      // The zone's own offsets: mountain standard time in January, daylight time in July.
      expect([offsetIn(denver, Date.parse('2027-01-15T12:00:00Z')), offsetIn(denver, Date.parse('2027-07-15T12:00:00Z'))]).toEqual([-420, -360]);
      expect(readsAll()).toBe(1);
      expect(zones.of('America/Denver')).toBe(denver);
      const zurich = zones.of('Europe/Zurich')!;
      expect([offsetIn(zurich, Date.parse('2027-01-15T12:00:00Z')), offsetIn(zurich, Date.parse('2027-07-15T12:00:00Z'))]).toEqual([60, 120]);
      expect(readsAll()).toBe(1);
    } finally {
      db.close();
    }
  });
});
