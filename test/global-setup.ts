import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildDatabase } from '../src/db/build.js';
// @ts-expect-error: plain JavaScript, no declarations
import { buildDist } from '../scripts/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    dbPath: string;
  }
}

/**
 * Builds one real SQLite database for the run, which every test server opens (or copies), and
 * the bundle the spawned server processes run (.test-dist/, the same build as npm start's).
 */
export default async function setup(project: TestProject) {
  await buildDist(path.join(import.meta.dirname, '..', '.test-dist'));
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-test-'));
  const dbPath = path.join(dir, 'gateway.sqlite');
  buildDatabase(dbPath);
  project.provide('dbPath', dbPath);
  return () => rmSync(dir, { recursive: true, force: true });
}
