import { describe, expect, it } from 'vitest';
import { loadResortCatalogue } from '../../src/data/db/sources/resort-source.js';
import { generateLifts, generateTrails, LIFT_RULES, liftTypeFromName, regionalRating } from '../../src/domain/inventory.js';
import type { ResortFacts } from '../../src/domain/resort.js';
import { createHash } from 'node:crypto';
import { SYNTHETIC } from './inventory-fixtures.js';

const catalogue = loadResortCatalogue();
const byId = (id: string) => catalogue.find((r) => r.id === id)!;
const vertical = (r: ResortFacts) => r.summitElevation - r.baseElevation;

// The exact answers first: they are cheap and catch most changes, and under Stryker, which stops a
// mutant's run at its first failing test, they kill most mutants before the loops over every resort run.
describe('reproducible on every machine', () => {
  // The inventory follows from the resort alone: these are the exact trails and lifts every machine
  // generates for resorts of each size and region (a change to the generator changes them, and
  // bumps INVENTORY_GENERATOR_VERSION so databases rebuild).
  const digest = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex');
  it('gives these exact trails and lifts', () => {
    expect(digest(SYNTHETIC.map((r) => generateTrails(r)))).toBe('bae0c778f3454e27c54b4e650d55dc9077d6715cc9ac10bbb8bf54af8cf890c7');
    expect(digest(SYNTHETIC.map((r) => generateLifts(r)))).toBe('3780bbc394a87c0e84751f61703b1228992003ae5131c091eaaae68a235b30c0');
  });
});

describe('generated lifts', () => {
  it('as many as the resort has, named uniquely, the same on every call', () => {
    for (const r of catalogue) {
      const lifts = generateLifts(r);
      expect(lifts).toHaveLength(r.liftCount);
      expect(new Set(lifts.map((l) => l.name)).size).toBe(lifts.length);
      expect(lifts.map((l) => l.id)).toEqual(lifts.map((_, i) => `${r.id}:l${i + 1}`));
    }
    expect(generateLifts(byId('vail'))).toEqual(generateLifts(byId('vail')));
  });

  it('cable cars and funiculars only where real ones are plausible, at most one funicular', () => {
    const { cableCar, funicular } = LIFT_RULES;
    let cableCars = 0;
    let funiculars = 0;
    for (const r of catalogue) {
      const lifts = generateLifts(r);
      const count = (t: string) => lifts.filter((l) => l.type === t).length;
      if (count('CABLE_CAR')) {
        cableCars++;
        expect(r.liftCount).toBeGreaterThanOrEqual(cableCar.minLifts);
        expect(vertical(r)).toBeGreaterThan(cableCar.minVerticalM);
        expect(r.summitElevation).toBeGreaterThan(cableCar.minSummitM);
        expect(count('CABLE_CAR')).toBe(1);
      }
      if (count('FUNICULAR')) {
        funiculars++;
        expect(r.liftCount).toBeGreaterThanOrEqual(funicular.minLifts);
        expect(vertical(r)).toBeGreaterThan(funicular.minVerticalM);
        expect(count('FUNICULAR')).toBe(1);
      }
      if (vertical(r) < LIFT_RULES.gondolaMinVerticalM) expect(count('GONDOLA')).toBe(0);
    }
    // The rules leave room for them where they belong.
    expect(cableCars).toBeGreaterThan(20);
    expect(funiculars).toBeGreaterThan(5);
    expect(generateLifts(byId('zermatt'))[1]!.type).toBe('CABLE_CAR');
  });

  it('each rule holds at its exact bound: 8 lifts, 1,200 m and 2,500 m for a cable car; 21 lifts and 1,500 m for a funicular; 600 m for gondolas', () => {
    const { cableCar, funicular } = LIFT_RULES;
    const resort = (id: string, liftCount: number, vertical: number, summit = 3000, continent = 'North America'): ResortFacts => ({
      ...byId('vail'),
      id,
      continent,
      liftCount,
      baseElevation: summit - vertical,
      summitElevation: summit,
    });
    const second = (r: ResortFacts) => generateLifts(r)[1]!.type;
    expect(second(resort('cc', cableCar.minLifts, cableCar.minVerticalM + 1, cableCar.minSummitM + 1))).toBe('CABLE_CAR');
    expect(second(resort('cc', cableCar.minLifts - 1, cableCar.minVerticalM + 1, cableCar.minSummitM + 1))).not.toBe('CABLE_CAR');
    expect(second(resort('cc', cableCar.minLifts, cableCar.minVerticalM, cableCar.minSummitM + 1))).not.toBe('CABLE_CAR');
    expect(second(resort('cc', cableCar.minLifts, cableCar.minVerticalM + 1, cableCar.minSummitM))).not.toBe('CABLE_CAR');
    // Which lifts draw a big one is random by resort: count over many resorts at the bound.
    const many = (make: (i: number) => ResortFacts, type: string) =>
      Array.from({ length: 150 }, (_, i) => generateLifts(make(i)).filter((l) => l.type === type).length).reduce((a, b) => a + b, 0);
    expect(many((i) => resort(`f${i}`, funicular.minLifts, funicular.minVerticalM + 1, 2400), 'FUNICULAR')).toBeGreaterThan(0);
    expect(many((i) => resort(`f${i}`, funicular.minLifts - 1, funicular.minVerticalM + 1, 2400), 'FUNICULAR')).toBe(0);
    expect(many((i) => resort(`f${i}`, funicular.minLifts, funicular.minVerticalM, 2400), 'FUNICULAR')).toBe(0);
    expect(many((i) => resort(`g${i}`, 12, LIFT_RULES.gondolaMinVerticalM, 2400), 'GONDOLA')).toBeGreaterThan(0);
    expect(many((i) => resort(`g${i}`, 12, LIFT_RULES.gondolaMinVerticalM - 1, 2400), 'GONDOLA')).toBe(0);
  });

  it('the random lifts: mostly chairs, some gondolas and surface lifts, more surface lifts in Europe', () => {
    const types = (continent: string) => {
      const counts = new Map<string, number>();
      for (let i = 0; i < 100; i++) {
        const lifts = generateLifts({ ...byId('vail'), id: `mix${i}`, continent, liftCount: 30 }).slice(2, -1);
        for (const l of lifts) counts.set(l.type, (counts.get(l.type) ?? 0) + 1);
      }
      return counts;
    };
    for (const continent of ['Europe', 'North America']) {
      const c = types(continent);
      for (const t of ['CHAIRLIFT', 'GONDOLA', 'T_BAR', 'PLATTER', 'ROPE_TOW']) expect(c.get(t), `${continent} ${t}`).toBeGreaterThan(0);
      expect(c.get('CHAIRLIFT')!).toBeGreaterThan(c.get('GONDOLA')!);
    }
    const surface = (c: Map<string, number>) => (c.get('T_BAR') ?? 0) + (c.get('PLATTER') ?? 0) + (c.get('ROPE_TOW') ?? 0);
    expect(surface(types('Europe'))).toBeGreaterThan(2 * surface(types('North America')));
  });

  it('the access lift first, a learning-area carpet last; seats and capacity fit the type', () => {
    const vail = generateLifts(byId('vail'));
    expect(vail[0]).toMatchObject({ type: 'GONDOLA', openThreshold: 0, source: 'generated' });
    expect(vail.at(-1)).toMatchObject({ type: 'MAGIC_CARPET', openThreshold: 0, seats: 1 });
    expect(vail.at(-1)!.name).toMatch(/^Learning Area Magic Carpet/);
    for (const r of catalogue) {
      for (const l of generateLifts(r)) {
        const [lo, hi] = (
          {
            CHAIRLIFT: [2, 8],
            GONDOLA: [6, 10],
            CABLE_CAR: [60, 150],
            FUNICULAR: [120, 250],
            T_BAR: [2, 2],
            PLATTER: [1, 1],
            ROPE_TOW: [1, 1],
            MAGIC_CARPET: [1, 1],
            UNKNOWN: [1, 1],
          } as const
        )[l.type];
        expect(l.seats).toBeGreaterThanOrEqual(lo);
        expect(l.seats).toBeLessThanOrEqual(hi);
        expect(l.capacityPerHour).toBeGreaterThanOrEqual(420);
        expect(l.capacityPerHour).toBeLessThanOrEqual(4800);
        expect(l.openThreshold).toBeGreaterThanOrEqual(0);
        expect(l.openThreshold).toBeLessThanOrEqual(0.8);
      }
    }
    const small = generateLifts({ ...byId('vail'), id: 'tiny', liftCount: 3 });
    expect(small.map((l) => l.type).at(-1)).toBe('MAGIC_CARPET');
    expect(generateLifts({ ...byId('vail'), id: 'low', liftCount: 6, summitElevation: byId('vail').baseElevation + 900 })[0]!.type).toBe('CHAIRLIFT');
  });

  it('guesses a type from a lift name, UNKNOWN when the name says nothing', () => {
    const cases: [string, string][] = [
      ['Eagle Bahn Gondola', 'GONDOLA'],
      ['Aerial Tram', 'CABLE_CAR'],
      ['Tram', 'CABLE_CAR'],
      ['Funicular Perce-Neige', 'FUNICULAR'],
      ['Standseilbahn', 'FUNICULAR'],
      ['Magic Carpet 2', 'MAGIC_CARPET'],
      ['T-Bar', 'T_BAR'],
      ['Tbar', 'T_BAR'],
      ['Poma', 'PLATTER'],
      ['Rope Tow', 'ROPE_TOW'],
      ['Bunny tow', 'ROPE_TOW'],
      ['Born Free Express', 'CHAIRLIFT'],
      ['Summit Quad', 'CHAIRLIFT'],
      ['Zugspitze', 'UNKNOWN'],
      ['Tramway', 'UNKNOWN'],
    ];
    expect(cases.map(([name]) => [name, liftTypeFromName(name)])).toEqual(cases);
  });
});

describe('generated trails', () => {
  it('as many as the resort has, unique names, plausible lengths and thresholds, deterministic', () => {
    // Each resort's faults collected, one expect for all: an expect a trail took most of the time.
    const faults: string[] = [];
    const minOpen = { BEGINNER: 0, INTERMEDIATE: 0.05, ADVANCED: 0.1, EXPERT: 0.15 };
    for (const r of catalogue) {
      const trails = generateTrails(r);
      if (trails.length !== r.trailCount) faults.push(`${r.id}: ${trails.length} trails, not ${r.trailCount}`);
      if (new Set(trails.map((t) => t.name)).size !== trails.length) faults.push(`${r.id}: names repeat`);
      const longest = Math.max(150, vertical(r) * 2.6) + 10;
      for (const t of trails) {
        if (!(t.lengthM >= 150 && t.lengthM % 10 === 0 && t.lengthM <= longest)) faults.push(`${r.id} ${t.name}: ${t.lengthM} m`);
        if (!(t.openThreshold >= minOpen[t.difficulty] && t.openThreshold <= 1)) faults.push(`${r.id} ${t.name}: opens at ${t.openThreshold}`);
        if (!(t.groomThreshold >= 0 && t.groomThreshold <= 1)) faults.push(`${r.id} ${t.name}: grooms at ${t.groomThreshold}`);
      }
    }
    expect(faults).toEqual([]);
    expect(generateTrails(byId('zermatt'))).toEqual(generateTrails(byId('zermatt')));
  });

  it('bigger verticals carry more steep terrain; every grade appears across a big resort', () => {
    const share = (id: string) => {
      const t = generateTrails({ ...byId(id), trailCount: 2000 });
      return t.filter((x) => x.difficulty === 'ADVANCED' || x.difficulty === 'EXPERT').length / t.length;
    };
    const flat = { ...byId('vail'), id: 'flat', summitElevation: byId('vail').baseElevation + 300, trailCount: 2000 };
    const flatTrails = generateTrails(flat);
    const flatShare = flatTrails.filter((x) => x.difficulty === 'ADVANCED' || x.difficulty === 'EXPERT').length / flatTrails.length;
    expect(flatShare).toBeCloseTo(0.38, 1);
    expect(share('chamonix')).toBeGreaterThan(flatShare + 0.05);
    expect(new Set(generateTrails(byId('vail')).map((t) => t.difficulty))).toEqual(new Set(['BEGINNER', 'INTERMEDIATE', 'ADVANCED', 'EXPERT']));
  });

  it('repeated names get Roman numerals', () => {
    const names = generateTrails({ ...byId('vail'), id: 'many', trailCount: 3000 }).map((t) => t.name);
    expect(names.some((n) => / II$/.test(n))).toBe(true);
    expect(names.some((n) => / IV$/.test(n))).toBe(true);
    expect(names.some((n) => / IX$/.test(n))).toBe(true);
    expect(names.some((n) => / V$/.test(n))).toBe(true);
    expect(names.some((n) => / X$/.test(n))).toBe(true);
  });
});

describe('regional ratings', () => {
  it('North America and Oceania by symbols; Japan by colour; France green to black; elsewhere blue to itinerary', () => {
    const all = (cc: string, continent: string, roll = 0.9) =>
      (['BEGINNER', 'INTERMEDIATE', 'ADVANCED', 'EXPERT'] as const).map((d) => regionalRating(cc, continent, d, roll));
    expect(all('US', 'North America')).toEqual(['green-circle', 'blue-square', 'black-diamond', 'double-black-diamond']);
    expect(all('NZ', 'Oceania')).toEqual(['green-circle', 'blue-square', 'black-diamond', 'double-black-diamond']);
    expect(all('JP', 'Asia')).toEqual(['green', 'red', 'black', 'black']);
    expect(all('FR', 'Europe', 0.4)).toEqual(['green', 'red', 'black', 'black']);
    expect(all('FR', 'Europe', 0.5)).toEqual(['blue', 'red', 'black', 'black']);
    expect(all('CH', 'Europe')).toEqual(['blue', 'red', 'black', 'itinerary']);
  });
});
