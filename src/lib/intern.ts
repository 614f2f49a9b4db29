/**
 * One copy of each small repeated string (a difficulty, a rating, a source): the database driver
 * returns a new string for every row, and the resort snapshots kept in memory hold tens of
 * thousands of trails and lifts. (The ZIP table keeps its strings once itself: zip-table.ts.)
 */
const pool = new Map<string, string>();

export function intern(s: string): string {
  let v = pool.get(s);
  if (v === undefined) {
    if (pool.size > 200_000) pool.clear();
    pool.set(s, (v = s));
  }
  return v;
}
