import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.js';
import './types/health.js';
import './types/state.js';
import './types/zip.js';
import './types/units.js';
import './types/conditions.js';
import './types/inventory.js';
import './types/resort.js';
import './types/rankings.js';
import './types/history.js';
import './types/sync.js';

/** The schema, sorted so the printed SDL diffs cleanly. */
export const schema = lexicographicSortSchema(builder.toSchema());
