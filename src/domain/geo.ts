/** Mean Earth radius in miles, the value the ZIP API documents for its distances. */
export const EARTH_RADIUS_MILES = 3958.8;
export const KM_PER_MILE = 1.609344;

const toRad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in miles by the haversine formula. */
export function haversineMiles(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = toRad(lat2 - lat1);
  const dLng = toRad(lng2 - lng1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(lat1)) * Math.cos(toRad(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Rounds a distance for output; two decimals is ~16 m, finer than the ZIP centroids themselves. */
export function roundMiles(miles: number): number {
  return Math.round(miles * 100) / 100;
}
