/**
 * Climatology for the weather generator: smooth seasonal normals from latitude, elevation and day
 * of year. Deliberately simple: it gives every resort a plausible winter in its own hemisphere.
 */

/** °C lost per 1000 m of height; below the free-air 6.5 because winter valleys hold inversions. */
export const LAPSE_RATE_PER_KM = 5.0;

export function isSouthern(lat: number): boolean {
  return lat < 0;
}

/** Day of year of the coldest normal: late January in the north, late July in the south. */
export function coldestDay(lat: number): number {
  return isSouthern(lat) ? 201 : 20;
}

/** 1 in the depth of winter, 0 in high summer. */
export function winterness(lat: number, dayOfYear: number): number {
  return (1 + Math.cos((2 * Math.PI * (dayOfYear - coldestDay(lat))) / 365.25)) / 2;
}

/** Normal daily mean temperature, °C, at an elevation in metres. */
export function normalMeanTemp(lat: number, elevationM: number, dayOfYear: number): number {
  const absLat = Math.abs(lat);
  const seaLevelAnnual = 27 - 0.35 * absLat;
  const amplitude = 3 + 0.2 * absLat;
  const seasonal = -amplitude * Math.cos((2 * Math.PI * (dayOfYear - coldestDay(lat))) / 365.25);
  return seaLevelAnnual + seasonal - (LAPSE_RATE_PER_KM * elevationM) / 1000;
}

/** The day a season's simulation starts from nothing: August 1st north, February 1st south. */
export function seasonAnchorMonthDay(lat: number): string {
  return isSouthern(lat) ? '02-01' : '08-01';
}
