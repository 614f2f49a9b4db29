import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { RESORT_CATALOGUE } from './sources/resort-source.js';
import { ZIP_DATASET_DATE } from './sources/zip-source.js';

/** Bump when the generated inventory changes for the same catalogue. */
const INVENTORY_GENERATOR_VERSION = 1;

let cached: string | null = null;

/** A hash of everything a build reads, so an edited catalogue rebuilds the database at start. */
export function sourceFingerprint(): string {
  cached ??= createHash('sha256')
    .update(readFileSync(RESORT_CATALOGUE))
    .update(`zips:${ZIP_DATASET_DATE};inventory:${INVENTORY_GENERATOR_VERSION}`)
    .digest('hex')
    .slice(0, 16);
  return cached;
}
