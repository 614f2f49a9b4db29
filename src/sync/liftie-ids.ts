import { readFileSync } from 'node:fs';
import { dataFile } from '../lib/paths.js';

const FILE = dataFile('liftie-ids.json');

/** Which of our resorts Liftie covers, and under which of its ids. */
export function loadLiftieIds(file = FILE): Map<string, string> {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  return new Map(Object.entries(raw).filter(([k]) => !k.startsWith('_')));
}
