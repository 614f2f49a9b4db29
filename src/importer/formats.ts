import { z } from 'zod';
import type { SkiAreaFeature } from 'openskidata-format';
import type { DescriptiveFacts } from '../domain/resort-fields.js';

/** A ski area as either source describes it, reduced to what the catalogue keeps. */
export interface ImportedArea extends DescriptiveFacts {
  source: 'openskimap' | 'openskistats';
  sourceId: string;
  /** OpenSkiMap's id of the same area (OpenSkiStats ids are OpenSkiMap ids), for runs and lifts. */
  openSkiMapId: string | null;
  name: string | null;
  operating: boolean;
  downhill: boolean;
  countryCode: string | null;
  region: string | null;
  lat: number;
  lng: number;
  minElevation: number | null;
  maxElevation: number | null;
  liftCount: number;
  runCount: number;
}

const finite = z.number().refine(Number.isFinite);

const OpenSkiStatsFile = z.object({
  ski_areas: z.array(
    z.object({
      ski_area_id: z.string(),
      ski_area_name: z.string().nullable().optional(),
      osm_status: z.string().nullable().optional(),
      ski_area_uses: z.array(z.string()).nullable().optional(),
      country_code: z.string().nullable().optional(),
      region: z.string().nullable().optional(),
      ski_area_websites: z.array(z.string()).nullable().optional(),
      lift_count: z.number().nullable().optional(),
      run_count: z.number().nullable().optional(),
      latitude: finite.nullable().optional(),
      longitude: finite.nullable().optional(),
      min_elevation: z.number().nullable().optional(),
      max_elevation: z.number().nullable().optional(),
    }),
  ),
});

/** Which format a parsed file is in: OpenSkiStats' object with `ski_areas`, or GeoJSON. */
export function detectFormat(data: unknown): 'openskistats' | 'openskimap' | null {
  if (data && typeof data === 'object' && Array.isArray((data as { ski_areas?: unknown }).ski_areas)) return 'openskistats';
  if (data && typeof data === 'object' && (data as { type?: unknown }).type === 'FeatureCollection') return 'openskimap';
  return null;
}

export function fromOpenSkiStats(data: unknown): { areas: ImportedArea[]; skipped: number } {
  const file = OpenSkiStatsFile.parse(data);
  const areas: ImportedArea[] = [];
  let skipped = 0;
  for (const a of file.ski_areas) {
    if (a.latitude == null || a.longitude == null) {
      skipped++;
      continue;
    }
    areas.push({
      source: 'openskistats',
      sourceId: a.ski_area_id,
      openSkiMapId: a.ski_area_id,
      name: a.ski_area_name ?? null,
      operating: a.osm_status === 'operating',
      downhill: (a.ski_area_uses ?? []).includes('downhill'),
      countryCode: a.country_code ?? null,
      region: a.region ?? null,
      lat: a.latitude,
      lng: a.longitude,
      minElevation: a.min_elevation ?? null,
      maxElevation: a.max_elevation ?? null,
      liftCount: Math.max(0, Math.round(a.lift_count ?? 0)),
      runCount: Math.max(0, Math.round(a.run_count ?? 0)),
      website: a.ski_area_websites?.[0] ?? null,
    });
  }
  return { areas, skipped };
}

/** The mean of a geometry's (outer) coordinates: good enough to place a ski area. */
function centre(geometry: SkiAreaFeature['geometry'] | null | undefined): [number, number] | null {
  if (!geometry) return null;
  const rings: number[][][] =
    geometry.type === 'Point'
      ? [[geometry.coordinates as number[]]]
      : geometry.type === 'Polygon'
        ? [geometry.coordinates[0] as number[][]]
        : geometry.type === 'MultiPolygon'
          ? geometry.coordinates.map((p) => p[0] as number[][])
          : [];
  const pts = rings.flat().filter((c) => Number.isFinite(c[0]) && Number.isFinite(c[1]));
  if (pts.length === 0) return null;
  return [pts.reduce((s, c) => s + c[0]!, 0) / pts.length, pts.reduce((s, c) => s + c[1]!, 0) / pts.length];
}

function sumCounts(obj: unknown): number {
  // Statistics nest counts by activity/difficulty or by lift type: add every `count` found.
  if (!obj || typeof obj !== 'object') return 0;
  let n = 0;
  for (const [k, v] of Object.entries(obj)) n += k === 'count' && typeof v === 'number' ? v : sumCounts(v);
  return n;
}

export function fromOpenSkiMap(data: unknown): { areas: ImportedArea[]; skipped: number } {
  const features = z.object({ type: z.literal('FeatureCollection'), features: z.array(z.any()) }).parse(data).features as SkiAreaFeature[];
  const areas: ImportedArea[] = [];
  let skipped = 0;
  for (const f of features) {
    const p = f?.properties;
    const at = centre(f?.geometry);
    if (!p || typeof p.id !== 'string' || !at) {
      skipped++;
      continue;
    }
    const place = p.places?.[0];
    areas.push({
      source: 'openskimap',
      sourceId: p.id,
      openSkiMapId: p.id,
      name: p.name ?? null,
      operating: p.status === 'operating',
      downhill: (p.activities ?? []).includes('downhill' as never),
      countryCode: place?.iso3166_1Alpha2 ?? null,
      region: place?.localized?.en?.region ?? null,
      lat: at[1],
      lng: at[0],
      minElevation: p.statistics?.minElevation ?? null,
      maxElevation: p.statistics?.maxElevation ?? null,
      liftCount: sumCounts(p.statistics?.lifts?.byType),
      runCount: sumCounts((p.statistics?.runs?.byActivity as Record<string, unknown> | undefined)?.downhill),
      website: p.websites?.[0] ?? null,
    });
  }
  return { areas, skipped };
}
