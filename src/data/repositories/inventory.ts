import type { Db } from '../db/open.js';
import type { LiftFacts, TrailFacts } from '../../domain/resort.js';
import type { LiftStatus } from '../../domain/conditions.js';
import { LIFTS, TRAILS } from '../db/tables.js';

export interface LiveLiftRow {
  resortId: string;
  ordinal: number;
  name: string;
  status: LiftStatus;
  source: string;
}

/** Trails and lifts of many resorts in one statement each, in their stable order. */
export class InventoryRepository {
  /** Bumped when inventory is replaced (imports), so caches of derived states know they are stale. */
  version = 0;

  private readonly trailsStmt;
  private readonly liftsStmt;
  private readonly liveStmt;

  constructor(db: Db) {
    this.trailsStmt = db.prepare<[string], TrailFacts>(
      `SELECT ${TRAILS.select()} FROM trails WHERE resort_id IN (SELECT value FROM json_each(?)) ORDER BY resort_id, ordinal`,
    );
    this.liftsStmt = db.prepare<[string], LiftFacts>(
      `SELECT ${LIFTS.select()} FROM lifts WHERE resort_id IN (SELECT value FROM json_each(?)) ORDER BY resort_id, ordinal`,
    );
    this.liveStmt = db.prepare<[string], LiveLiftRow>(
      `SELECT resort_id AS resortId, ordinal, name, status, source FROM live_lifts
       WHERE resort_id IN (SELECT value FROM json_each(?)) ORDER BY resort_id, ordinal`,
    );
  }

  /** Lifts from a live feed, where a sync run stored some; they replace the generated ones. */
  liveLiftsOf(resortIds: readonly string[]): LiveLiftRow[] {
    return this.liveStmt.all(JSON.stringify(resortIds));
  }

  trailsOf(resortIds: readonly string[]): TrailFacts[] {
    return this.trailsStmt.all(JSON.stringify(resortIds));
  }

  liftsOf(resortIds: readonly string[]): LiftFacts[] {
    return this.liftsStmt.all(JSON.stringify(resortIds));
  }
}
