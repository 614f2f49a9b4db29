import { builder } from '../builder.js';
import type { StateRecord, ZipRecord } from '../../data/repositories/zips.js';
import type { NearbyZip } from '../../domain/zip-spatial-index.js';

/**
 * The object types that refer to each other (a ZIP's state, a state's ZIPs), declared here and
 * implemented in their own files (zip.ts, state.ts), so neither file imports the other.
 */
export const ZipRef = builder.objectRef<ZipRecord>('Zip');
export const NearbyZipRef = builder.objectRef<NearbyZip>('NearbyZip');
export const StateRef = builder.objectRef<StateRecord>('State');
