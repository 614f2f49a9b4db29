import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Entry from '../../src/bundle-entry.js';

/** The suite's bundle: the same build as npm start's dist/, made once by test/global-setup.ts. */
export const BUNDLE_DIR = path.resolve(import.meta.dirname, '../../.test-dist');

let loaded: Promise<typeof Entry> | null = null;

/**
 * The server as a library from that bundle (its `app` entry), loaded by Node itself (vitest's
 * config keeps .test-dist/ external): tests that start servers in their own process run the
 * program users run, not src/ under a transpiler.
 */
export function bundle(): Promise<typeof Entry> {
  return (loaded ??= import(pathToFileURL(path.join(BUNDLE_DIR, 'app.js')).href) as Promise<typeof Entry>);
}
