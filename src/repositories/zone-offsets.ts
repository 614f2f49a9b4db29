import type { Db } from '../db/open.js';
import type { ZoneOffsets } from '../domain/zone-offsets.js';

/** Time zones' offsets as the database keeps them (db/zone-offsets.ts), read once per zone. */
export class ZoneOffsetRepository {
  private readonly rows;
  private readonly known = new Map<string, ZoneOffsets>();

  constructor(db: Db) {
    this.rows = db.prepare<[string], { at: number; minutes: number | null }>(
      'SELECT starts_at AS at, offset_minutes AS minutes FROM zone_offsets WHERE zone = ? ORDER BY starts_at',
    );
  }

  /** The zone's offsets, or undefined when the database has none (local time then asks Intl). */
  of(zone: string): ZoneOffsets | undefined {
    const kept = this.known.get(zone);
    if (kept) return kept;
    const rows = this.rows.all(zone);
    const last = rows.pop();
    if (!last || last.minutes !== null || rows.length === 0) return undefined;
    const offsets = { starts: rows.map((r) => r.at), minutes: rows.map((r) => r.minutes!), end: last.at };
    this.known.set(zone, offsets);
    return offsets;
  }
}
