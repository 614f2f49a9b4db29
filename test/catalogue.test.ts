import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadResortCatalogue, RESORT_CATALOGUE } from '../src/data/db/sources/resort-source.js';
import { generateLifts, generateTrails } from '../src/domain/inventory.js';
import { haversineMiles, KM_PER_MILE } from '../src/domain/geo.js';
import { SHARED_DATA_ABSENT, sharedFile } from './helpers/shared-data.js';

const resorts = loadResortCatalogue();
const SHARED = sharedFile('openskistats-ski-areas.json');

describe('curated resort catalogue', () => {
  it('has at least 200 real resorts on every skiing continent', () => {
    expect(resorts.length).toBe(241);
    for (const c of ['North America', 'Europe', 'Asia', 'South America', 'Oceania']) {
      expect(resorts.filter((r) => r.continent === c).length, c).toBeGreaterThanOrEqual(5);
    }
    const countries = new Set(resorts.map((r) => r.countryCode));
    for (const c of ['US', 'CA', 'FR', 'CH', 'AT', 'IT', 'JP', 'KR', 'CL', 'AR', 'AU', 'NZ']) expect(countries.has(c), c).toBe(true);
  });

  it('derives country names and continents from the country code', () => {
    const byId = new Map(resorts.map((r) => [r.id, r]));
    expect(byId.get('vail')).toMatchObject({ countryName: 'United States', continent: 'North America' });
    expect(byId.get('zermatt')).toMatchObject({ countryName: 'Switzerland', continent: 'Europe' });
    expect(byId.get('niseko')).toMatchObject({ continent: 'Asia' });
    expect(byId.get('portillo')).toMatchObject({ continent: 'South America' });
    expect(byId.get('thredbo')).toMatchObject({ continent: 'Oceania' });
  });

  it('keeps ids as unique lowercase slugs and elevations sensible', () => {
    expect(new Set(resorts.map((r) => r.id)).size).toBe(resorts.length);
    for (const r of resorts) {
      expect(r.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(r.summitElevation).toBeGreaterThan(r.baseElevation);
    }
  });

  // OpenSkiStats' ski areas (ODbL) are reference data for this check only, never copied.
  it('puts every resort within 10 km of an OpenSkiMap ski area with a plausible summit', (ctx) => {
    if (!SHARED) return ctx.skip(SHARED_DATA_ABSENT);
    const areas = (
      JSON.parse(readFileSync(SHARED, 'utf8')) as { ski_areas: { latitude: number | null; longitude: number | null; max_elevation: number | null }[] }
    ).ski_areas.filter((a) => a.latitude !== null && a.longitude !== null);
    const problems: string[] = [];
    for (const r of resorts) {
      const near = areas.filter((a) => haversineMiles(r.lat, r.lng, a.latitude!, a.longitude!) * KM_PER_MILE <= 10);
      const tolerance = Math.max(400, 0.15 * r.summitElevation);
      if (near.length === 0) problems.push(`${r.id}: no ski area within 10 km`);
      else if (!near.some((a) => a.max_elevation !== null && Math.abs(a.max_elevation - r.summitElevation) <= tolerance)) {
        problems.push(`${r.id}: summit ${r.summitElevation} m unlike nearby areas`);
      }
    }
    expect(problems).toEqual([]);
  });

  // Base and summit are the lift-served bottom and top: within 150 m of a nearby OpenSkiMap area's
  // min and max elevation, or the catalogue says why not (`elevationNote`).
  it('has base and summit within 150 m of OpenSkiMap’s lift-served range, or a documented exception', (ctx) => {
    if (!SHARED) return ctx.skip(SHARED_DATA_ABSENT);
    const notes = new Map((JSON.parse(readFileSync(RESORT_CATALOGUE, 'utf8')) as { id: string; elevationNote?: string }[]).map((e) => [e.id, e.elevationNote]));
    const areas = (
      JSON.parse(readFileSync(SHARED, 'utf8')) as {
        ski_areas: { latitude: number | null; longitude: number | null; min_elevation: number | null; max_elevation: number | null }[];
      }
    ).ski_areas.filter((a) => a.latitude !== null && a.longitude !== null && a.min_elevation !== null && a.max_elevation !== null);
    const off: string[] = [];
    for (const r of resorts) {
      const near = areas.filter((a) => haversineMiles(r.lat, r.lng, a.latitude!, a.longitude!) * KM_PER_MILE <= 10);
      const fits = near.some((a) => Math.abs(a.min_elevation! - r.baseElevation) <= 150 && Math.abs(a.max_elevation! - r.summitElevation) <= 150);
      if (!fits) off.push(r.id);
    }
    const noted = [...notes].filter(([, note]) => note).map(([id]) => id);
    // Every resort outside the tolerance is explained, and every explanation is still needed.
    expect(off.sort()).toEqual(noted.sort());
    expect(noted.length).toBeLessThanOrEqual(25);
  });
});

describe('generated inventory', () => {
  it('matches the catalogue counts and is stable', () => {
    for (const r of resorts.slice(0, 40)) {
      const trails = generateTrails(r);
      const lifts = generateLifts(r);
      expect(trails).toHaveLength(r.trailCount);
      expect(lifts).toHaveLength(r.liftCount);
      expect(new Set(trails.map((t) => t.name)).size).toBe(trails.length);
      expect(generateTrails(r)).toEqual(trails);
      expect(trails.every((t) => t.source === 'generated')).toBe(true);
    }
  });

  it('uses the regional rating scheme', () => {
    const byId = (id: string) => resorts.find((r) => r.id === id)!;
    const ratings = (id: string) => new Set(generateTrails(byId(id)).map((t) => t.rating));
    expect([...ratings('vail')].every((x) => ['green-circle', 'blue-square', 'black-diamond', 'double-black-diamond'].includes(x))).toBe(true);
    expect([...ratings('zermatt')].every((x) => ['blue', 'red', 'black', 'itinerary'].includes(x))).toBe(true);
    expect(ratings('val-disere').has('green')).toBe(true);
    for (const t of generateTrails(byId('vail'))) {
      expect({ BEGINNER: 'green-circle', INTERMEDIATE: 'blue-square', ADVANCED: 'black-diamond', EXPERT: 'double-black-diamond' }[t.difficulty]).toBe(t.rating);
    }
  });
});
