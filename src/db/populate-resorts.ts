import type { Db } from './open.js';
import type { BuildHooks } from './build.js';
import { loadResortCatalogue } from './sources/resort-source.js';
import { generateLifts, generateTrails } from '../domain/inventory.js';

export function populateResorts(db: Db, hooks: BuildHooks): void {
  const resorts = loadResortCatalogue();
  const insertResort = db.prepare(`INSERT INTO resorts (id, name, country_code, country_name, region, continent, lat, lng,
    base_elevation, summit_elevation, lift_count, trail_count, website, inventory_source)
    VALUES (@id, @name, @countryCode, @countryName, @region, @continent, @lat, @lng, @baseElevation, @summitElevation,
    @liftCount, @trailCount, @website, 'generated')`);
  const insertTrail = db.prepare(`INSERT INTO trails (id, resort_id, ordinal, name, difficulty, rating, length_m,
    open_threshold, groom_threshold, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertLift = db.prepare(`INSERT INTO lifts (id, resort_id, ordinal, name, type, seats, capacity_per_hour,
    open_threshold, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  let written = 0;
  for (const resort of resorts) {
    insertResort.run(resort);
    generateTrails(resort).forEach((t, i) =>
      insertTrail.run(t.id, t.resortId, i + 1, t.name, t.difficulty, t.rating, t.lengthM, t.openThreshold, t.groomThreshold, t.source),
    );
    generateLifts(resort).forEach((l, i) =>
      insertLift.run(l.id, l.resortId, i + 1, l.name, l.type, l.seats, l.capacityPerHour, l.openThreshold, l.source),
    );
    hooks.onProgress?.('resorts', ++written);
  }
}
