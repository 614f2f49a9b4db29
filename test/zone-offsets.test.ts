import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/data/db/open.js';
import { ZoneOffsetRepository } from '../src/data/repositories/zone-offsets.js';
import { privateDatabase } from './helpers/server.js';

describe('zone offsets', () => {
  it('are read once, when local time is first asked for, not when the repository is made (start-up)', () => {
    const executed: string[] = [];
    const db = openDatabase(privateDatabase('gateway-zones-'), { onStatement: (sql) => void executed.push(String(sql)) });
    try {
      const readsAll = () => executed.filter((sql) => /FROM zone_offsets ORDER BY zone/.test(sql)).length;
      const zones = new ZoneOffsetRepository(db);
      expect(readsAll()).toBe(0);
      const denver = zones.of('America/Denver');
      expect(denver).toBeDefined();
      expect(readsAll()).toBe(1);
      expect(zones.of('America/Denver')).toBe(denver);
      expect(zones.of('Europe/Zurich')).toBeDefined();
      expect(readsAll()).toBe(1);
    } finally {
      db.close();
    }
  });
});
