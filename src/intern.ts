/**
 * One copy of each small repeated string (a state code, a county, a difficulty, a source): the
 * database driver returns a new string for every row, and the structures kept in memory (the ZIP
 * index, resort snapshots) hold tens of thousands of rows.
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
