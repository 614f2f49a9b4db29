import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root (where package.json and data/ are), found from wherever this code runs:
 * src/ under tsx, or the compiled dist/.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'data'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`cannot find the project root above ${from}`);
  }
}

export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** A file under data/: the curated inputs. */
export const dataFile = (name: string) => path.join(PROJECT_ROOT, 'data', name);
