import { addDays, dayNumber } from './dates.js';
import { isSouthern } from './weather/climate.js';

export interface PlannedSeason {
  opens: string;
  closes: string;
}

/** High resorts open earlier and close later; the threshold is the summit in metres. */
const HIGH_SUMMIT_M = 3000;

function seasonStartingIn(year: number, lat: number, summitM: number): PlannedSeason {
  const high = summitM >= HIGH_SUMMIT_M;
  if (isSouthern(lat)) {
    return { opens: addDays(`${year}-06-13`, high ? -14 : 0), closes: addDays(`${year}-10-05`, high ? 14 : 0) };
  }
  return { opens: addDays(`${year}-11-22`, high ? -21 : 0), closes: addDays(`${year + 1}-04-12`, high ? 21 : 0) };
}

/**
 * The planned season (the operator's published dates) that `date` falls in, or the next one when
 * the date is between seasons. Real operators publish these; ours follow a rule by hemisphere.
 */
export function plannedSeason(date: string, lat: number, summitM: number): PlannedSeason {
  const year = Number(date.slice(0, 4));
  for (const y of [year - 1, year]) {
    const s = seasonStartingIn(y, lat, summitM);
    if (dayNumber(s.closes) >= dayNumber(date)) return s;
  }
  // A season starting next year closes after any date of this one.
  return seasonStartingIn(year + 1, lat, summitM);
}

export function inSeason(date: string, season: PlannedSeason): boolean {
  return date >= season.opens && date <= season.closes;
}
