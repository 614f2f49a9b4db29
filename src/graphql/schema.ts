import { builder } from './builder.js';
import './types/health.js';
import './types/state.js';
import './types/zip.js';
import './types/units.js';
import './types/conditions.js';
import './types/inventory.js';
import './types/resort.js';
import './types/lookups.js';
import './types/rankings.js';
import './types/history.js';
import './types/sync.js';

/**
 * The schema in the order it is declared: fields and enum values read in their natural order
 * (BEGINNER before EXPERT), which introspection and the SDL show as they are. The order is fixed
 * by the source, so the printed SDL still diffs cleanly.
 */
export const schema = builder.toSchema({ sortSchema: false });
