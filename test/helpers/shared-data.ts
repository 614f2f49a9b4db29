import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Third-party reference data beside the repository (../shared/README.md): tests may read it, never copy it. */
export const SHARED_DATA = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'data');

/** The one reason a test may give for skipping (scripts/test-totals.mjs accepts no other): test/floor.json's words. */
export const SHARED_DATA_ABSENT: string = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', 'floor.json'), 'utf8')).sharedDataAbsent;

/** A file of the shared data, or null where it is absent (the caller then skips with SHARED_DATA_ABSENT). */
export function sharedFile(name: string): string | null {
  const file = path.join(SHARED_DATA, name);
  return existsSync(file) ? file : null;
}
