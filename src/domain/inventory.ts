import { createRng, type Rng } from './random.js';
import type { Difficulty, LiftFacts, LiftType, ResortFacts, TrailFacts } from './resort.js';

/**
 * Trail and lift inventory for resorts whose real runs and lifts we do not hold. It is generated
 * from the resort id alone, so names and grades are the same on every start and every machine,
 * and it is labelled `generated` wherever it is served.
 */

const NA_COUNTRIES = new Set(['US', 'CA']);
const GREEN_BLUE_RED_BLACK = new Set(['FR', 'ES', 'AD', 'CL', 'AR']);
const EAST_ASIA = new Set(['JP', 'KR', 'CN']);

/** The regional colour or symbol for a difficulty. */
export function regionalRating(countryCode: string, continent: string, difficulty: Difficulty, roll: number): string {
  if (NA_COUNTRIES.has(countryCode) || continent === 'Oceania') {
    return { BEGINNER: 'green-circle', INTERMEDIATE: 'blue-square', ADVANCED: 'black-diamond', EXPERT: 'double-black-diamond' }[difficulty];
  }
  if (EAST_ASIA.has(countryCode)) {
    return { BEGINNER: 'green', INTERMEDIATE: 'red', ADVANCED: 'black', EXPERT: 'black' }[difficulty];
  }
  if (GREEN_BLUE_RED_BLACK.has(countryCode)) {
    // Beginner terrain there is marked green or blue.
    return { BEGINNER: roll < 0.5 ? 'green' : 'blue', INTERMEDIATE: 'red', ADVANCED: 'black', EXPERT: 'black' }[difficulty];
  }
  // The rest of Europe and elsewhere: blue, red, black, and marked but unpatrolled ski routes.
  return { BEGINNER: 'blue', INTERMEDIATE: 'red', ADVANCED: 'black', EXPERT: 'itinerary' }[difficulty];
}

const TRAIL_WORDS = [
  'Eagle',
  'Ptarmigan',
  'Marmot',
  'Larch',
  'Spruce',
  'Aspen',
  'Cedar',
  'Raven',
  'Falcon',
  'Wolf',
  'Lynx',
  'Fox',
  'Summit',
  'Sunrise',
  'Sundown',
  'Morning',
  'Alpine',
  'Glacier',
  'Cornice',
  'Avalanche',
  'Powder',
  'Blizzard',
  'Thunder',
  'Lightning',
  'Comet',
  'Meteor',
  'Horizon',
  'Echo',
  'Boulder',
  'Granite',
  'Crystal',
  'Silver',
  'Golden',
  'Hidden',
  'Lost',
  'Lonesome',
  'Old Mine',
  'Pioneer',
  'Ranger',
  'Timberline',
  'Moonlight',
  'Starlight',
  'North Star',
  'Chamois',
  'Ibex',
  'Edelweiss',
  'Gentian',
  'Heather',
  'Juniper',
  'Birch',
  'Pine',
  'Misty',
  'Frosty',
  'Crooked',
];
const TRAIL_NOUNS: Record<Difficulty, string[]> = {
  BEGINNER: ['Meadow', 'Way', 'Lane', 'Trail', 'Path', 'Loop', 'Green', 'Promenade'],
  INTERMEDIATE: ['Run', 'Cruiser', 'Road', 'Ridge', 'Traverse', 'Boulevard', 'Valley', 'Slope'],
  ADVANCED: ['Bowl', 'Face', 'Glades', 'Headwall', 'Gully', 'Steeps', 'Bumps', 'Drop'],
  EXPERT: ['Chute', 'Couloir', 'Cliffs', 'Couloirs', 'Wall', 'Plunge', 'Abyss', 'Gnarl'],
};

const LIFT_WORDS = [
  'Eagle',
  'Summit',
  'Valley',
  'Panorama',
  'Glacier',
  'Sunrise',
  'Express',
  'Ridge',
  'Peak',
  'Lakeside',
  'Village',
  'Forest',
  'Horizon',
  'Crest',
  'Meadow',
  'Powder',
  'Cirque',
  'Sky',
  'Bear',
  'Alpenrose',
];
const LIFT_SUFFIX: Record<LiftType, string> = {
  CHAIRLIFT: 'Chair',
  GONDOLA: 'Gondola',
  CABLE_CAR: 'Cable Car',
  FUNICULAR: 'Funicular',
  T_BAR: 'T-Bar',
  PLATTER: 'Platter',
  ROPE_TOW: 'Rope Tow',
  MAGIC_CARPET: 'Magic Carpet',
  UNKNOWN: 'Lift',
};

/** The grade mix: bigger verticals carry more steep terrain. */
function difficultyFor(rng: Rng, verticalM: number): Difficulty {
  const steep = Math.min(0.12, Math.max(0, (verticalM - 600) / 10000));
  const r = rng.next();
  if (r < 0.22 - steep / 2) return 'BEGINNER';
  if (r < 0.62 - steep) return 'INTERMEDIATE';
  if (r < 0.88 - steep / 2) return 'ADVANCED';
  return 'EXPERT';
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base} ${toRoman(n)}`;
  taken.add(name);
  return name;
}

function toRoman(n: number): string {
  const table: [number, string][] = [
    [10, 'X'],
    [9, 'IX'],
    [5, 'V'],
    [4, 'IV'],
    [1, 'I'],
  ];
  let out = '';
  for (const [v, s] of table) {
    while (n >= v) {
      out += s;
      n -= v;
    }
  }
  return out;
}

export function generateTrails(resort: ResortFacts): TrailFacts[] {
  const rng = createRng(`trails:${resort.id}`);
  const vertical = resort.summitElevation - resort.baseElevation;
  const taken = new Set<string>();
  const trails: TrailFacts[] = [];
  for (let i = 0; i < resort.trailCount; i++) {
    const difficulty = difficultyFor(rng, vertical);
    const name = uniqueName(`${rng.pick(TRAIL_WORDS)} ${rng.pick(TRAIL_NOUNS[difficulty])}`, taken);
    const stretch = { BEGINNER: 2.2, INTERMEDIATE: 2.6, ADVANCED: 1.8, EXPERT: 1.3 }[difficulty];
    const lengthM = Math.round(Math.max(150, vertical * stretch * (0.25 + rng.next() * 0.75)) / 10) * 10;
    const offset = { BEGINNER: 0, INTERMEDIATE: 0.05, ADVANCED: 0.1, EXPERT: 0.15 }[difficulty];
    trails.push({
      id: `${resort.id}:t${i + 1}`,
      resortId: resort.id,
      name,
      difficulty,
      rating: regionalRating(resort.countryCode, resort.continent, difficulty, rng.next()),
      lengthM,
      openThreshold: round3(Math.min(1, offset + rng.next() * 0.85)),
      groomThreshold: round3(rng.next()),
      source: 'generated',
    });
  }
  return trails;
}

/**
 * Big aerial lifts only where real ones are plausible: a cable car (as the second lift) at resorts
 * with at least 8 lifts, over 1,200 m of vertical and a summit above 2,500 m; at most one
 * funicular, at resorts with more than 20 lifts and over 1,500 m of vertical; gondolas where
 * there is at least 600 m of vertical. The first lift of a resort with 4 or more is its access
 * lift (a gondola over 1,000 m of vertical, else a chair), the last a learning-area carpet;
 * Europe has more surface lifts. Everything else is a chairlift.
 */
export const LIFT_RULES = {
  cableCar: { minLifts: 8, minVerticalM: 1200, minSummitM: 2500 },
  funicular: { minLifts: 21, minVerticalM: 1500 },
  gondolaMinVerticalM: 600,
  accessGondolaMinVerticalM: 1000,
} as const;

/** The types the generator makes: UNKNOWN is only ever read from a feed's name. */
type GeneratedLiftType = Exclude<LiftType, 'UNKNOWN'>;

function liftTypeFor(rng: Rng, resort: ResortFacts, index: number, hasFunicular: boolean): GeneratedLiftType {
  const vertical = resort.summitElevation - resort.baseElevation;
  const europe = resort.continent === 'Europe';
  const { cableCar, funicular } = LIFT_RULES;
  if (index === 0 && resort.liftCount >= 4) return vertical > LIFT_RULES.accessGondolaMinVerticalM ? 'GONDOLA' : 'CHAIRLIFT';
  if (index === 1 && resort.liftCount >= cableCar.minLifts && vertical > cableCar.minVerticalM && resort.summitElevation > cableCar.minSummitM)
    return 'CABLE_CAR';
  if (index === resort.liftCount - 1) return 'MAGIC_CARPET';
  const r = rng.next();
  if (r < 0.02) return !hasFunicular && resort.liftCount >= funicular.minLifts && vertical > funicular.minVerticalM ? 'FUNICULAR' : 'CHAIRLIFT';
  if (r < (europe ? 0.12 : 0.07)) return vertical >= LIFT_RULES.gondolaMinVerticalM ? 'GONDOLA' : 'CHAIRLIFT';
  if (r < (europe ? 0.32 : 0.12)) return 'T_BAR';
  if (r < (europe ? 0.4 : 0.15)) return 'PLATTER';
  if (r < (europe ? 0.42 : 0.17)) return 'ROPE_TOW';
  return 'CHAIRLIFT';
}

function seatsAndCapacity(rng: Rng, type: GeneratedLiftType): [number, number] {
  switch (type) {
    case 'CHAIRLIFT': {
      const seats = rng.pick([2, 3, 4, 4, 4, 6, 6, 8]);
      return [seats, seats * 600 - rng.int(0, 4) * 100];
    }
    case 'GONDOLA': {
      const seats = rng.pick([6, 8, 8, 10, 10]);
      return [seats, 2000 + rng.int(0, 20) * 100];
    }
    case 'CABLE_CAR': {
      const seats = rng.pick([60, 80, 100, 125, 150]);
      return [seats, seats * 7];
    }
    case 'FUNICULAR': {
      const seats = rng.pick([120, 200, 250]);
      return [seats, seats * 9];
    }
    case 'T_BAR':
      return [2, 1100 + rng.int(0, 4) * 100];
    case 'PLATTER':
      return [1, 700 + rng.int(0, 4) * 100];
    case 'ROPE_TOW':
      return [1, 600 + rng.int(0, 4) * 100];
    case 'MAGIC_CARPET':
      return [1, 1000 + rng.int(0, 5) * 100];
  }
}

export function generateLifts(resort: ResortFacts): LiftFacts[] {
  const rng = createRng(`lifts:${resort.id}`);
  const taken = new Set<string>();
  const lifts: LiftFacts[] = [];
  for (let i = 0; i < resort.liftCount; i++) {
    const type = liftTypeFor(
      rng,
      resort,
      i,
      lifts.some((l) => l.type === 'FUNICULAR'),
    );
    const [seats, capacityPerHour] = seatsAndCapacity(rng, type);
    const base = type === 'MAGIC_CARPET' ? 'Learning Area' : rng.pick(LIFT_WORDS);
    lifts.push({
      id: `${resort.id}:l${i + 1}`,
      resortId: resort.id,
      name: uniqueName(`${base} ${LIFT_SUFFIX[type]}`, taken),
      type,
      seats,
      capacityPerHour,
      // Access lifts and learning areas run first; the rest follow the snow.
      openThreshold: round3(i === 0 || type === 'MAGIC_CARPET' ? 0 : rng.next() * 0.8),
      source: 'generated',
    });
  }
  return lifts;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

const TYPE_WORDS: [RegExp, LiftType][] = [
  [/gondola|cabriolet|télécabine|gondelbahn/i, 'GONDOLA'],
  // Before cable cars: a Standseilbahn (funicular) is also a -seilbahn.
  [/funicular|standseilbahn/i, 'FUNICULAR'],
  [/\btram\b|cable ?car|aerial|seilbahn|téléphérique|funitel/i, 'CABLE_CAR'],
  [/magic carpet|carpet/i, 'MAGIC_CARPET'],
  [/t-?bar|anchor/i, 'T_BAR'],
  [/platter|poma|button/i, 'PLATTER'],
  [/rope ?tow|\btow\b/i, 'ROPE_TOW'],
  [/chair|express|quad|triple|double|six|lift\b|sesselbahn|télésiège/i, 'CHAIRLIFT'],
];

/** A lift's type guessed from its name, where a feed gives only names; UNKNOWN when it says nothing. */
export function liftTypeFromName(name: string): LiftType {
  return TYPE_WORDS.find(([re]) => re.test(name))?.[1] ?? 'UNKNOWN';
}
