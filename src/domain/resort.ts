import type { DescriptiveFacts } from './resort-fields.js';

/** A catalogue resort as the domain code sees it (metres, degrees), with its descriptive facts. */
export interface ResortFacts extends DescriptiveFacts {
  id: string;
  name: string;
  countryCode: string;
  countryName: string;
  region: string;
  continent: string;
  lat: number;
  lng: number;
  baseElevation: number;
  summitElevation: number;
  liftCount: number;
  trailCount: number;
  /** IANA time zone: the resort's local days and hours. */
  timezone: string;
}

// Each enum's values are declared once, here or beside the code that decides them; GraphQL's enums
// (graphql/types), the documented response bodies (rest/responses.ts) and /openapi.json derive theirs.
export const DIFFICULTIES = ['BEGINNER', 'INTERMEDIATE', 'ADVANCED', 'EXPERT'] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

export const LIFT_TYPES = ['CHAIRLIFT', 'GONDOLA', 'CABLE_CAR', 'FUNICULAR', 'T_BAR', 'PLATTER', 'ROPE_TOW', 'MAGIC_CARPET', 'UNKNOWN'] as const;
export type LiftType = (typeof LIFT_TYPES)[number];

export type InventorySource = 'generated' | 'openskimap' | 'liftie';

export interface TrailFacts {
  id: string;
  resortId: string;
  name: string;
  difficulty: Difficulty;
  /** The rating as skiers there know it: "black-diamond", "red", … */
  rating: string;
  lengthM: number;
  /** The share of the mountain that must be skiable (0–1) before this trail opens. */
  openThreshold: number;
  /** Below this, an open trail of a steep grade is groomed (0–1). */
  groomThreshold: number;
  source: InventorySource;
}

export interface LiftFacts {
  id: string;
  resortId: string;
  name: string;
  type: LiftType;
  /** Unknown (null) for lifts known only by name, e.g. from a live status feed. */
  seats: number | null;
  capacityPerHour: number | null;
  openThreshold: number;
  source: InventorySource;
}
