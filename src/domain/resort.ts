/** A catalogue resort as the domain code sees it (metres, degrees). */
export interface ResortFacts {
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
  website: string | null;
  /** IANA time zone: the resort's local days and hours. */
  timezone: string;
}

export type Difficulty = 'BEGINNER' | 'INTERMEDIATE' | 'ADVANCED' | 'EXPERT';
export const DIFFICULTIES: readonly Difficulty[] = ['BEGINNER', 'INTERMEDIATE', 'ADVANCED', 'EXPERT'];

export type LiftType = 'CHAIRLIFT' | 'GONDOLA' | 'CABLE_CAR' | 'FUNICULAR' | 'T_BAR' | 'PLATTER' | 'ROPE_TOW' | 'MAGIC_CARPET' | 'UNKNOWN';
export const LIFT_TYPES: readonly LiftType[] = ['CHAIRLIFT', 'GONDOLA', 'CABLE_CAR', 'FUNICULAR', 'T_BAR', 'PLATTER', 'ROPE_TOW', 'MAGIC_CARPET', 'UNKNOWN'];

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
