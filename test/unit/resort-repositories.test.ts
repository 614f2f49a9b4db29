import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/data/db/open.js';
import { sourceFingerprint } from '../../src/data/db/fingerprint.js';
import { ResortRepository } from '../../src/data/repositories/resorts.js';
import { ZoneOffsetRepository } from '../../src/data/repositories/zone-offsets.js';
import { privateDatabase } from '../helpers/server.js';
import { beforeAllOrFailEach } from './fixture-hooks.js';

// One copy of the run's database for the file (each test makes its repository: Stryker credits a
// test only with what runs in it), removed after.
let file: string;
let db: ReturnType<typeof openDatabase>;
beforeAllOrFailEach(() => {
  file = privateDatabase('resort-repositories-');
  db = openDatabase(file);
});
afterAll(() => {
  db?.close();
  rmSync(path.dirname(file), { recursive: true, force: true });
});

const ids = (r: { resorts: { id: string }[] }) => r.resorts.map((x) => x.id);

describe('the resort repository', () => {
  it('searches by name or id, country, region and continent, by name then id, a page at a time', () => {
    const resorts = new ResortRepository(db);
    const valley = resorts.search({ q: 'VAL' }, 100, 0);
    expect(valley.total).toBe(13);
    expect(ids(valley)).toEqual([
      'bolton-valley',
      'canazei',
      'deer-valley',
      'grandvalira',
      'serre-chevalier',
      'sun-valley',
      'salen',
      'taos',
      'val-disere',
      'val-gardena',
      'val-thorens',
      'valle-nevado',
      'waterville-valley',
    ]);
    expect(ids(resorts.search({ q: 'val' }, 3, 2))).toEqual(['deer-valley', 'grandvalira', 'serre-chevalier']);
    // By id too (no name holds "disere"), and % and _ mean themselves.
    expect(ids(resorts.search({ q: 'disere' }, 10, 0))).toEqual(['val-disere']);
    expect(resorts.search({ q: '%' }, 10, 0)).toEqual({ total: 0, resorts: [] });
    expect(resorts.search({ q: 'val_d' }, 10, 0)).toEqual({ total: 0, resorts: [] });
    expect(ids(resorts.search({ country: 'CL' }, 10, 0))).toEqual(['corralco', 'el-colorado', 'la-parva', 'nevados-de-chillan', 'portillo', 'valle-nevado']);
    expect(resorts.search({ country: 'cl' }, 10, 0).total).toBe(0);
    expect(resorts.search({ region: 'colorado' }, 100, 0).total).toBe(19);
    expect(resorts.search({ continent: 'south america' }, 100, 0).total).toBe(10);
    expect(ids(resorts.search({ q: 'val', country: 'FR', region: 'savoie', continent: 'EUROPE' }, 10, 0))).toEqual(['val-disere', 'val-thorens']);
    expect(resorts.search({}, 1, 0)).toEqual({ total: 241, resorts: [expect.objectContaining({ id: expect.any(String) })] });
    expect(resorts.search({ q: '' }, 1, 0).total).toBe(241);
    // A name that holds a wildcard is found by it, as written.
    db.prepare("UPDATE resorts SET name = '100% Powder_Park' WHERE id = 'portillo'").run();
    try {
      expect(ids(resorts.search({ q: '0% powder_' }, 10, 0))).toEqual(['portillo']);
    } finally {
      db.prepare("UPDATE resorts SET name = 'Portillo' WHERE id = 'portillo'").run();
    }
  });

  it('resorts by id with their inventory’s source; all of them by id', () => {
    const resorts = new ResortRepository(db);
    const found = resorts.findByIds(['portillo', 'nope']);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ id: 'portillo', name: 'Portillo', countryCode: 'CL', continent: 'South America', inventorySource: expect.any(String) });
    const all = resorts.all();
    expect(all).toHaveLength(241);
    expect(all.map((r) => r.id)).toEqual(all.map((r) => r.id).sort());
  });
});

describe('the zone offsets repository', () => {
  it('a zone’s offsets from the database; one added later found by itself, once; none for a zone without', () => {
    const zones = new ZoneOffsetRepository(db);
    expect(zones.of('Asia/Tokyo')).toEqual({ starts: [0], minutes: [540], end: 3155760000000 });
    expect(zones.of('Africa/Maseru')!.starts).toHaveLength(1);
    expect(zones.of('Mars/Olympus')).toBeUndefined();
    db.exec("INSERT INTO zone_offsets VALUES ('Test/Later', 0, 60), ('Test/Later', 100, 120), ('Test/Later', 200, NULL), ('Test/Open', 0, 30)");
    try {
      expect(zones.of('Test/Later')).toEqual({ starts: [0, 100], minutes: [60, 120], end: 200 });
      // A zone without its closing row is left out, and one of nothing but its closing row.
      db.exec("INSERT INTO zone_offsets VALUES ('Test/Closed', 0, NULL)");
      expect(new ZoneOffsetRepository(db).of('Test/Closed')).toBeUndefined();
      expect(zones.of('Test/Open')).toBeUndefined();
      expect(new ZoneOffsetRepository(db).of('Test/Open')).toBeUndefined();
      // Asked once: a zone found missing stays so.
      expect(zones.of('Mars/Olympus')).toBeUndefined();
      db.exec("INSERT INTO zone_offsets VALUES ('Mars/Olympus', 0, 1), ('Mars/Olympus', 5, NULL)");
      expect(zones.of('Mars/Olympus')).toBeUndefined();
      expect(new ZoneOffsetRepository(db).of('Mars/Olympus')).toEqual({ starts: [0], minutes: [1], end: 5 });
    } finally {
      db.exec("DELETE FROM zone_offsets WHERE zone IN ('Test/Later', 'Test/Open', 'Test/Closed', 'Mars/Olympus')");
    }
  });
});

describe('opening the database', () => {
  it('for serving: WAL, foreign keys, a wait for locks, a small page cache; statements to whoever asks', () => {
    const seen: unknown[] = [];
    const serving = openDatabase(file, { serving: true, onStatement: (sql) => seen.push(sql) });
    const background = openDatabase(file);
    try {
      const pragma = (d: typeof db, name: string) => d.pragma(name, { simple: true });
      expect(['journal_mode', 'synchronous', 'foreign_keys', 'busy_timeout', 'cache_size'].map((p) => pragma(serving, p))).toEqual(['wal', 1, 1, 5000, -256]);
      expect(pragma(background, 'cache_size')).toBe(-1024);
      serving.prepare('SELECT 1').get();
      expect(seen.at(-1)).toBe('SELECT 1');
    } finally {
      serving.close();
      background.close();
    }
    expect(() => openDatabase(path.join(path.dirname(file), 'missing.sqlite'))).toThrow();
  });
});

describe('the sources’ fingerprint', () => {
  it('is what the run’s database was built from: 16 hex digits, the same each time asked', () => {
    const fingerprint = sourceFingerprint();
    expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'sources.fingerprint'").pluck().get()).toBe(fingerprint);
    expect(sourceFingerprint()).toBe(fingerprint);
  });
});
