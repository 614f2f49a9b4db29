import type { Db } from './open.js';
import { LIFTS, RESORTS, TRAILS } from './tables.js';
import type { LiftFacts, ResortFacts, TrailFacts } from '../../domain/resort.js';
import { generateLifts, generateTrails } from '../../domain/inventory.js';

type Verb = 'INSERT' | 'INSERT OR REPLACE';

/**
 * Writes resorts and their trails and lifts, for the build and the importers alike: the same
 * columns, and each inventory row numbered in its resort's order.
 */
export function inventoryWriter(db: Db, verb: Verb = 'INSERT') {
  const trail = db.prepare(TRAILS.insert({ verb }));
  const lift = db.prepare(LIFTS.insert({ verb }));
  const dropTrails = db.prepare('DELETE FROM trails WHERE resort_id = ?');
  const dropLifts = db.prepare('DELETE FROM lifts WHERE resort_id = ?');
  return {
    /** Replaces a resort's trails (all of them) with these, in this order. */
    trails(resortId: string, trails: readonly TrailFacts[]): void {
      dropTrails.run(resortId);
      for (const [i, t] of trails.entries()) trail.run(TRAILS.values({ ...t, resortId, ordinal: i + 1 }));
    },
    lifts(resortId: string, lifts: readonly LiftFacts[]): void {
      dropLifts.run(resortId);
      for (const [i, l] of lifts.entries()) lift.run(LIFTS.values({ ...l, resortId, ordinal: i + 1 }));
    },
    /** The generated inventory of a resort whose real runs and lifts we do not hold. */
    generated(resort: ResortFacts): void {
      this.trails(resort.id, generateTrails(resort));
      this.lifts(resort.id, generateLifts(resort));
    },
  };
}

/** Inserts a resort row; `origin` says whether it is curated or imported. */
export function resortInsert(db: Db, origin: 'curated' | 'imported') {
  const stmt = db.prepare(RESORTS.insert({ extra: { inventory_source: "'generated'", origin: `'${origin}'` } }));
  return (resort: ResortFacts) => void stmt.run(RESORTS.values(resort));
}
