import type { Db } from '../db/open.js';
import type { ZoneOffsets } from '../../domain/zone-offsets.js';

type OffsetRow = { zone: string; at: number; minutes: number | null };

/**
 * Time zones' offsets as the database keeps them (db/zone-offsets.ts): every zone's read in one
 * statement (a few hundred rows a zone) when local time is first asked for, not at start (it
 * would delay the first answer, which a ZIP lookup does not need), then a zone added since (an import
 * while the server runs) by a statement of its own, once.
 */
export class ZoneOffsetRepository {
  private readonly zoneStmt;
  private readonly allStmt;
  private known: Map<string, ZoneOffsets | null> | null = null;

  constructor(db: Db) {
    const sql = 'SELECT zone, starts_at AS at, offset_minutes AS minutes FROM zone_offsets';
    this.zoneStmt = db.prepare<[string], OffsetRow>(`${sql} WHERE zone = ? ORDER BY starts_at`);
    this.allStmt = db.prepare<[], OffsetRow>(`${sql} ORDER BY zone, starts_at`);
  }

  /** The zone's offsets, or undefined when the database has none (local time then asks Intl). */
  of(zone: string): ZoneOffsets | undefined {
    this.known ??= byZone(this.allStmt.all());
    let offsets = this.known.get(zone);
    if (offsets === undefined) {
      offsets = byZone(this.zoneStmt.all(zone)).get(zone) ?? null;
      this.known.set(zone, offsets);
    }
    return offsets ?? undefined;
  }
}

/** Rows by zone (ordered by zone, then instant); a zone without its closing row (NULL offset) is left out. */
function byZone(rows: OffsetRow[]): Map<string, ZoneOffsets | null> {
  const zones = new Map<string, ZoneOffsets | null>();
  let zone: string | null = null;
  let starts: number[] = [];
  let minutes: number[] = [];
  for (const row of rows) {
    if (row.zone !== zone) {
      zone = row.zone;
      starts = [];
      minutes = [];
    }
    if (row.minutes !== null) {
      starts.push(row.at);
      minutes.push(row.minutes);
    } else if (starts.length > 0) {
      zones.set(zone, { starts, minutes, end: row.at });
    }
  }
  return zones;
}
