import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RESORT_CATALOGUE } from './sources/resort-source.js';
import { ZIP_DATASET_DATE } from './sources/zip-source.js';
import { SCHEMA_SQL } from './schema-sql.js';

/** Bump when the generated inventory changes for the same catalogue. */
const INVENTORY_GENERATOR_VERSION = 2;

let cached: string | null = null;

/** A hash of everything a build reads (and the schema), so an edited catalogue rebuilds at start. */
export function sourceFingerprint(): string {
  cached ??= createHash('sha256')
    .update(readFileSync(RESORT_CATALOGUE))
    .update(SCHEMA_SQL)
    .update(`zips:${ZIP_DATASET_DATE};inventory:${INVENTORY_GENERATOR_VERSION}`)
    .digest('hex')
    .slice(0, 16);
  return cached;
}
