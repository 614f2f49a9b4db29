import type { Db } from './open.js';
import { intlOffsetMinutes } from '../../domain/local-time.js';
import { OFFSET_SPAN, scanOffsets } from '../../domain/zone-offsets.js';

/**
 * Writes the offsets of every resort time zone the zone_offsets table lacks (after a build and an
 * import; Intl is slow at it, so a zone is scanned once). A zone Intl does not know is left out: the server then asks Intl, which
 * fails for it as it always did.
 */
export function writeZoneOffsets(db: Db): void {
  const missing = db
    .prepare<[], string>('SELECT DISTINCT timezone FROM resorts WHERE timezone NOT IN (SELECT zone FROM zone_offsets) ORDER BY timezone')
    .pluck()
    .all();
  const insert = db.prepare('INSERT INTO zone_offsets (zone, starts_at, offset_minutes) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const zone of missing) {
      let offsets: ReturnType<typeof scanOffsets>;
      try {
        offsets = scanOffsets((ms) => intlOffsetMinutes(zone, ms), OFFSET_SPAN.start, OFFSET_SPAN.end);
      } catch {
        continue;
      }
      for (const [i, at] of offsets.starts.entries()) insert.run(zone, at, offsets.minutes[i]);
      insert.run(zone, offsets.end, null);
    }
  })();
}
