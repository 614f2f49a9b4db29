import { getRunColorName, type LiftFeature, type RunFeature } from 'openskidata-format';
import { z } from 'zod';
import type { Db } from '../data/db/open.js';
import { inventoryWriter } from '../data/db/inventory-writer.js';
import { haversineMiles, KM_PER_MILE } from '../domain/geo.js';
import { unitFromSeed } from '../domain/random.js';
import type { Difficulty, LiftType } from '../domain/resort.js';

/**
 * Real trail and lift inventory from OpenSkiMap's runs and lifts GeoJSON. For every resort the
 * features belong to (through their ski areas' ids), it replaces the inventory, in one
 * transaction, and marks the resort's inventory as `openskimap`.
 */

const DIFFICULTY: Record<string, Difficulty> = {
  novice: 'BEGINNER',
  easy: 'BEGINNER',
  intermediate: 'INTERMEDIATE',
  advanced: 'ADVANCED',
  expert: 'EXPERT',
  freeride: 'EXPERT',
  extreme: 'EXPERT',
};

const LIFT_TYPE: Record<string, LiftType> = {
  cable_car: 'CABLE_CAR',
  gondola: 'GONDOLA',
  chair_lift: 'CHAIRLIFT',
  mixed_lift: 'GONDOLA',
  drag_lift: 'T_BAR',
  't-bar': 'T_BAR',
  'j-bar': 'T_BAR',
  platter: 'PLATTER',
  rope_tow: 'ROPE_TOW',
  magic_carpet: 'MAGIC_CARPET',
  funicular: 'FUNICULAR',
  railway: 'FUNICULAR',
};

const Collection = z.object({ type: z.literal('FeatureCollection'), features: z.array(z.any()) });

/** Metres along a line (or the outline of an area run). */
function lengthM(geometry: RunFeature['geometry'] | LiftFeature['geometry'] | null | undefined): number {
  if (!geometry) return 0;
  const lines: number[][][] =
    geometry.type === 'LineString'
      ? [geometry.coordinates as number[][]]
      : geometry.type === 'MultiLineString'
        ? (geometry.coordinates as number[][][])
        : geometry.type === 'Polygon'
          ? [geometry.coordinates[0] as number[][]]
          : [];
  let km = 0;
  for (const line of lines) {
    for (let i = 1; i < line.length; i++) km += haversineMiles(line[i - 1]![1]!, line[i - 1]![0]!, line[i]![1]!, line[i]![0]!) * KM_PER_MILE;
  }
  return Math.round(km * 1000);
}

export interface InventoryImportResult {
  resorts: number;
  trails: number;
  lifts: number;
  unmatched: number;
}

export function importInventory(db: Db, runsData: unknown | null, liftsData: unknown | null): InventoryImportResult {
  const resortOf = db.prepare<[string], { resortId: string }>("SELECT resort_id AS resortId FROM resort_sources WHERE source = 'openskimap' AND source_id = ?");
  const trailsBy = new Map<string, { id: string; name: string; difficulty: Difficulty; rating: string; lengthM: number }[]>();
  const liftsBy = new Map<string, { id: string; name: string; type: LiftType; seats: number | null; capacity: number | null }[]>();
  let unmatched = 0;

  const resortsFor = (skiAreas: { properties?: { id?: string } }[] | undefined): string[] => {
    const ids = new Set<string>();
    for (const s of skiAreas ?? []) {
      const r = s.properties?.id ? resortOf.get(s.properties.id)?.resortId : undefined;
      if (r) ids.add(r);
    }
    if (ids.size === 0) unmatched++;
    return [...ids];
  };

  for (const f of (runsData ? Collection.parse(runsData).features : []) as RunFeature[]) {
    const p = f?.properties;
    if (!p || !(p.uses ?? []).includes('downhill' as never)) continue;
    for (const resortId of resortsFor(p.skiAreas as never)) {
      const list = trailsBy.get(resortId) ?? [];
      list.push({
        id: `${resortId}:osm:${p.id}`,
        name: p.name ?? (p.ref ? `Run ${p.ref}` : `Unnamed run ${list.length + 1}`),
        difficulty: DIFFICULTY[p.difficulty ?? ''] ?? 'INTERMEDIATE',
        rating: p.difficulty ? getRunColorName(p.difficultyConvention, p.difficulty) : 'unrated',
        lengthM: lengthM(f.geometry),
      });
      trailsBy.set(resortId, list);
    }
  }
  for (const f of (liftsData ? Collection.parse(liftsData).features : []) as LiftFeature[]) {
    const p = f?.properties;
    if (!p || (p.status && p.status !== 'operating')) continue;
    for (const resortId of resortsFor(p.skiAreas as never)) {
      const list = liftsBy.get(resortId) ?? [];
      const type = LIFT_TYPE[p.liftType] ?? 'UNKNOWN';
      list.push({
        id: `${resortId}:osm:${p.id}`,
        name: p.name ?? (p.ref ? `Lift ${p.ref}` : `Unnamed ${type.toLowerCase().replace('_', ' ')} ${list.length + 1}`),
        type,
        seats: p.occupancy ?? null,
        capacity: p.capacity ?? null,
      });
      liftsBy.set(resortId, list);
    }
  }

  const result: InventoryImportResult = { resorts: 0, trails: 0, lifts: 0, unmatched };
  const write = inventoryWriter(db, 'INSERT OR REPLACE');
  const offset = { BEGINNER: 0, INTERMEDIATE: 0.05, ADVANCED: 0.1, EXPERT: 0.15 } as const;
  db.transaction(() => {
    for (const resortId of new Set([...trailsBy.keys(), ...liftsBy.keys()])) {
      const trails = trailsBy.get(resortId);
      const lifts = liftsBy.get(resortId);
      if (trails) {
        // Opening order and grooming still follow the snow: thresholds seeded by the run's id.
        write.trails(
          resortId,
          trails.map((t) => ({
            ...t,
            resortId,
            openThreshold: Math.min(1, offset[t.difficulty] + unitFromSeed(`open:${t.id}`) * 0.85),
            groomThreshold: unitFromSeed(`groom:${t.id}`),
            source: 'openskimap',
          })),
        );
        result.trails += trails.length;
      }
      if (lifts) {
        write.lifts(
          resortId,
          lifts.map((l, i) => ({
            id: l.id,
            resortId,
            name: l.name,
            type: l.type,
            seats: l.seats,
            capacityPerHour: l.capacity,
            openThreshold: i === 0 ? 0 : unitFromSeed(`open:${l.id}`) * 0.8,
            source: 'openskimap',
          })),
        );
        result.lifts += lifts.length;
      }
      db.prepare(`UPDATE resorts SET inventory_source = 'openskimap', trail_count = (SELECT count(*) FROM trails WHERE resort_id = @id),
        lift_count = (SELECT count(*) FROM lifts WHERE resort_id = @id) WHERE id = @id`).run({ id: resortId });
      result.resorts++;
    }
  })();
  return result;
}
