import { z } from 'zod';
import { DIFFICULTIES, LIFT_TYPES } from '../../domain/resort.js';
import { GROOMING_STATUSES, LIFT_STATUSES, OPERATING_STATUSES, SNOW_SURFACES, TRAIL_STATUSES } from '../../domain/conditions.js';
import { WEATHER_SUMMARIES } from '../../domain/weather/current.js';
import { UNIT_SYSTEMS } from '../../domain/units.js';
import { RESORT_FIELDS } from '../../domain/resort-fields.js';
import { SYNC_RUN_STATUSES, SYNC_STATES, SYNC_TRIGGERS } from '../../data/repositories/sync.js';

/**
 * The documented REST response bodies, declared once: each route's `shape` must return one
 * (checked by the compiler), /openapi.json describes them (z.toJSONSchema), and the tests
 * validate every route's real answers against that document. Objects are strict, so a field the
 * code adds without documenting it fails the tests.
 */

const int = z.number().int();
const num = z.number();
const str = z.string();
const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .meta({ format: 'date' });
const dateTime = z.string().meta({ format: 'date-time' });
const obj = <T extends z.ZodRawShape>(shape: T, description?: string) => {
  const o = z.strictObject(shape);
  return description ? o.meta({ description }) : o;
};

const SCALARS = { String: str, Int: int, Float: num } as const;
/** A resort's descriptive facts (src/domain/resort-fields.ts), each null when unknown. */
const descriptive = Object.fromEntries(
  Object.entries(RESORT_FIELDS).map(([name, f]) => [name, SCALARS[f.type].nullable().meta({ description: f.description })]),
) as { [F in keyof typeof RESORT_FIELDS]: z.ZodNullable<(typeof SCALARS)[(typeof RESORT_FIELDS)[F]['type']]> };

// ZIP API ---------------------------------------------------------------------------------------

export const ZipRecord = obj(
  {
    zip: str.regex(/^\d{5}$/),
    city: str,
    stateCode: str.regex(/^[A-Z]{2}$/),
    stateName: str,
    county: str,
    countyFips: str.regex(/^\d{5}$/),
    lat: num,
    lng: num,
    timezone: str.meta({ description: 'IANA time zone from the centroid, e.g. America/Phoenix (beyond the documented record).' }),
    lastUpdated: dateTime.meta({ description: 'When the dataset was published, ISO 8601 (its date at midnight UTC).' }),
  },
  'A ZIP code (GeoNames postal code data).',
).meta({ id: 'ZipRecord' });

export const ZipStats = obj({ totalZips: int, totalStates: int }).meta({ id: 'ZipStats' });

const NearbyZip = obj({ zip: str, city: str, stateCode: str, county: str, lat: num, lng: num, distanceMiles: num });

export const Nearby = obj({
  center: obj({ zip: str, lat: num, lng: num }),
  radiusMiles: num,
  results: z.array(NearbyZip),
}).meta({ id: 'Nearby' });

export const ZipsNear = obj(
  {
    center: obj({ lat: num, lng: num }, 'The point asked about.'),
    radiusMiles: num,
    results: z.array(NearbyZip),
  },
  'The ZIP codes nearest a point, nearest first.',
).meta({ id: 'ZipsNear' });

const ZipPoint = obj({ zip: str, city: str, stateCode: str, lat: num, lng: num });

export const ZipDistance = obj(
  {
    from: ZipPoint,
    to: ZipPoint,
    distanceMiles: num.meta({ description: 'Great-circle miles between the centroids (haversine, R = 3958.8 mi), 0.01 precision.' }),
    distanceKm: num.meta({ description: 'The same in kilometres, 0.01 precision.' }),
  },
  'Two ZIP codes and the distance between them.',
).meta({ id: 'ZipDistance' });

export const ZipList = obj(
  {
    zipcodes: z.array(ZipRecord).meta({ description: 'The codes found, in the order asked (each once).' }),
    notFound: z.array(str).meta({ description: 'The codes asked for that do not exist, in the order asked.' }),
  },
  'Several ZIP codes at once.',
).meta({ id: 'ZipList' });

export const States = z.array(obj({ stateCode: str, stateName: str, zipCount: int })).meta({ id: 'States' });

export const StateZips = obj({ stateCode: str, stateName: str, total: int, limit: int, offset: int, zipcodes: z.array(ZipRecord) }).meta({ id: 'StateZips' });

export const City = obj({ city: str, stateCode: str.optional(), count: int, zipcodes: z.array(ZipRecord) }).meta({ id: 'City' });

export const Health = obj({ status: str.meta({ description: 'Always "ok" while the process serves requests.' }), service: str, timestamp: dateTime }).meta({
  id: 'Health',
});

// Resort API ------------------------------------------------------------------------------------

export const UnitLabels = obj({
  system: z.enum(UNIT_SYSTEMS),
  depth: str,
  elevation: str,
  length: str,
  temperature: str,
  speed: str,
  precipitation: str,
}).meta({ id: 'UnitLabels', description: 'The unit of each kind of number in the response.' });

const GeoPoint = obj({ lat: num, lng: num });
const Elevation = obj({ base: int, summit: int, vertical: int });
const Surface = z.enum(SNOW_SURFACES);
const Summary = z.enum(WEATHER_SUMMARIES);
const OperatingStatus = z.enum(OPERATING_STATUSES);

export const ResortSummary = obj({
  id: str,
  name: str,
  country: str,
  countryName: str,
  region: str,
  continent: str,
  location: GeoPoint,
  timezone: str,
  elevation: Elevation,
  conditions: obj({
    status: OperatingStatus,
    surface: Surface,
    snowDepthBase: num,
    snowDepthMid: num,
    snowDepthSummit: num,
    newSnow24h: num,
    newSnow48h: num,
    newSnow72h: num,
    openTrails: int,
    totalTrails: int,
    openLifts: int,
    totalLifts: int,
    temperature: num,
  }),
  source: str,
}).meta({ id: 'ResortSummary' });

export const ResortRef = obj({ id: str, name: str, country: str, region: str, continent: str }).meta({ id: 'ResortRef' });

const ForecastLevel = obj({ elevation: int, tempMin: num, tempMax: num, snowfall: num, windSpeed: num, windGust: num });
export const ForecastDay = obj({
  date,
  summary: Summary,
  precipitationProbability: int,
  precipitation: num,
  snowLine: int,
  windDirection: int,
  base: ForecastLevel,
  mid: ForecastLevel.meta({ description: 'Mid-mountain: the elevation halfway between base and summit.' }),
  summit: ForecastLevel,
}).meta({ id: 'ForecastDay' });

export const CurrentWeather = obj({
  time: dateTime,
  summary: Summary,
  temperature: num,
  temperatureSummit: num,
  windSpeed: num,
  windGust: num,
  windDirection: int,
  snowfall24h: num,
  precipitation24h: num,
}).meta({ id: 'CurrentWeather' });

const countsBy = <K extends string>(keys: readonly [K, ...K[]], value: z.ZodType) => z.partialRecord(z.enum(keys), value);

export const TrailSummary = obj({
  total: int,
  open: int,
  groomed: int,
  byDifficulty: countsBy(DIFFICULTIES, obj({ total: int, open: int })),
  byStatus: countsBy(TRAIL_STATUSES, int),
}).meta({ id: 'TrailSummary' });

export const LiftSummary = obj({
  total: int,
  open: int,
  openCapacityPerHour: int,
  byType: countsBy(LIFT_TYPES, obj({ total: int, open: int })),
  byStatus: countsBy(LIFT_STATUSES, int),
}).meta({ id: 'LiftSummary' });

export const ResortList = obj({ total: int, limit: int, offset: int, units: UnitLabels, resorts: z.array(ResortSummary) }).meta({ id: 'ResortList' });

export const ResortDetail = obj({
  id: str,
  name: str,
  country: str,
  countryName: str,
  region: str,
  continent: str,
  location: GeoPoint,
  timezone: str.meta({ description: 'IANA time zone; `date`, the season and the forecast are local days there.' }),
  ...descriptive,
  elevation: Elevation,
  units: UnitLabels,
  source: str,
  inventorySource: str,
  date,
  updatedAt: str.meta({
    description: 'The moment the report describes, ISO 8601 with the resort’s offset; new snow covers the 24, 48, 72 and 168 hours before it.',
  }),
  operation: obj({ status: OperatingStatus, reason: str, seasonOpens: date, seasonCloses: date }),
  snow: obj({
    depthBase: num,
    depthMid: num.meta({ description: 'At mid-mountain (halfway between base and summit), kept between the base’s and the summit’s.' }),
    depthSummit: num,
    newSnow24h: num,
    newSnow48h: num,
    newSnow72h: num,
    newSnow7d: num,
    seasonTotal: num,
    lastSnowfall: obj(
      { date, amount: num },
      'The last day this season with measurable summit snowfall (0.1 in, 0.25 cm), and how much; null when none.',
    ).nullable(),
    surface: Surface,
  }),
  weather: CurrentWeather,
  forecast: z.array(ForecastDay),
  lifts: LiftSummary,
  trails: TrailSummary.extend({ openPct: num }),
}).meta({ id: 'ResortDetail' });

export const ResortWeather = obj({ resortId: str, name: str, source: str, units: UnitLabels, current: CurrentWeather, forecast: z.array(ForecastDay) }).meta({
  id: 'ResortWeather',
});

export const ResortTrails = obj({
  resortId: str,
  name: str,
  source: str,
  units: UnitLabels,
  summary: TrailSummary,
  trails: z.array(
    obj({
      id: str,
      name: str,
      difficulty: z.enum(DIFFICULTIES),
      rating: str,
      length: int,
      status: z.enum(TRAIL_STATUSES),
      grooming: z.enum(GROOMING_STATUSES),
    }),
  ),
}).meta({ id: 'ResortTrails' });

export const ResortLifts = obj({
  resortId: str,
  name: str,
  source: str,
  summary: LiftSummary,
  lifts: z.array(obj({ id: str, name: str, type: z.enum(LIFT_TYPES), seats: int.nullable(), capacityPerHour: int.nullable(), status: z.enum(LIFT_STATUSES) })),
}).meta({ id: 'ResortLifts' });

export const Comparison = obj({
  units: UnitLabels,
  resort: ResortSummary,
  with: ResortSummary,
  distanceKm: num,
  differences: obj({
    baseElevation: int,
    summitElevation: int,
    vertical: int,
    liftCount: int,
    trailCount: int,
    snowDepthBase: num,
    snowDepthMid: num,
    snowDepthSummit: num,
    newSnow24h: num,
    newSnow48h: num,
    newSnow72h: num,
    seasonSnowfall: num,
    openTrails: int,
    openLifts: int,
    temperature: num,
  }),
}).meta({ id: 'Comparison' });

const HistoryValues = obj({ snowfall: num, precipitation: num, snowDepth: num, tempMin: num, tempMax: num });
const Deviation = obj({ absolute: num, percent: num.nullable() });
const TemperatureDeviation = obj({ absolute: num });
export const History = obj({
  resortId: str,
  name: str,
  provider: str,
  parameters: obj({ days: int, years: int, radiusKm: num }),
  units: UnitLabels,
  window: obj({ from: date, to: date }),
  points: z.array(GeoPoint),
  daily: z.array(HistoryValues.extend({ date, baseline: HistoryValues })),
  summary: obj({
    current: HistoryValues,
    baseline: HistoryValues,
    deviation: obj({ snowfall: Deviation, precipitation: Deviation, snowDepth: Deviation, tempMin: TemperatureDeviation, tempMax: TemperatureDeviation }),
  }),
}).meta({ id: 'History' });

export const TopSnow = obj({
  limit: int,
  units: UnitLabels,
  resorts: z.array(obj({ rank: int, resort: ResortRef, newSnow24h: num, newSnow72h: num, snowDepthSummit: num, surface: Surface })),
}).meta({ id: 'TopSnow' });

export const OpenNow = obj({
  minOpenTrailsPct: num,
  count: int,
  units: UnitLabels,
  resorts: z.array(
    obj({ rank: int, resort: ResortRef, openTrailsPct: num, openTrails: int, totalTrails: int, openLifts: int, totalLifts: int, snowDepthBase: num }),
  ),
}).meta({ id: 'OpenNow' });

export const StormWatch = obj({
  limit: int,
  threshold48h: num,
  units: UnitLabels,
  resorts: z.array(obj({ rank: int, resort: ResortRef, snowfall48h: num, peakDate: date, peakSnowfall: num })),
}).meta({ id: 'StormWatch' });

export const SnowInsights = obj({
  days: int,
  from: date,
  to: date,
  units: UnitLabels,
  network: obj({ resorts: int, resortsWithSnow: int, averageSnowfall: num, averagePerDay: num, maxSnowfall: num }),
  resorts: z.array(obj({ resort: ResortRef, totalSnowfall: num, averagePerDay: num, maxDaySnowfall: num, maxDayDate: date.nullable() })),
}).meta({ id: 'SnowInsights' });

// Sync ------------------------------------------------------------------------------------------

export const SyncRun = obj({
  id: int,
  trigger: z.enum(SYNC_TRIGGERS),
  provider: str,
  startedAt: dateTime,
  finishedAt: dateTime.nullable(),
  status: z.enum(SYNC_RUN_STATUSES),
  resortsUpdated: int,
  resortsFailed: int,
  error: str.nullable(),
}).meta({ id: 'SyncRun' });

export const SyncStatus = obj({
  state: z.enum(SYNC_STATES),
  provider: str,
  progress: obj({ done: int, total: int }),
  lastRun: SyncRun.nullable(),
  nextScheduledRun: dateTime.nullable(),
}).meta({ id: 'SyncStatus' });

export const SyncHistory = obj({ limit: int, runs: z.array(SyncRun) }).meta({ id: 'SyncHistory' });

// Errors ----------------------------------------------------------------------------------------

export const Problem = z
  .object({
    type: str,
    title: str,
    status: int,
    detail: str,
    instance: str.optional(),
    code: str,
    requestId: str.optional(),
    errors: z.array(z.object({ name: str, value: z.unknown(), bound: str, message: str })).optional(),
  })
  .meta({
    id: 'Problem',
    description: 'RFC 9457 problem details; `code` matches GraphQL’s extensions.code, `errors` names each invalid parameter and its bound.',
  });
