/** Mean Earth radius in miles, the value the ZIP API documents for its distances. */
export const EARTH_RADIUS_MILES = 3958.8;
export const KM_PER_MILE = 1.609344;
/** Radians per degree, for code that converts many coordinates (multiplying, as the spatial indexes do). */
export const RAD_PER_DEG = Math.PI / 180;

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

const EARTH_RADIUS_KM = EARTH_RADIUS_MILES * KM_PER_MILE;

/** The point `km` away from (lat, lng) along the initial bearing (degrees from north). */
export function destinationPoint(lat: number, lng: number, bearingDeg: number, km: number): { lat: number; lng: number } {
  const d = km / EARTH_RADIUS_KM;
  const b = (bearingDeg * Math.PI) / 180;
  const p1 = (lat * Math.PI) / 180;
  const l1 = (lng * Math.PI) / 180;
  const p2 = Math.asin(Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(b));
  const l2 = l1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * Math.sin(p2));
  const lngDeg = (((((l2 * 180) / Math.PI + 540) % 360) + 360) % 360) - 180;
  return { lat: Math.round(((p2 * 180) / Math.PI) * 1e5) / 1e5, lng: Math.round(lngDeg * 1e5) / 1e5 };
}
