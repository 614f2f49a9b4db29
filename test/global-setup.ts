import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildDatabase } from '../src/db/build.js';
// @ts-expect-error: plain JavaScript, no declarations
import { buildDist } from '../scripts/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The database test servers share (they may write weather into it). */
    dbPath: string;
    /** The same database as built, never opened by a server: private copies are plain file copies of it. */
    templatePath: string;
    /** Where the run's temporary files go; removed when the run ends. */
    runDir: string;
  }
}

/**
 * Builds one real SQLite database for the run, which every test server opens (or copies), and
 * the bundles the spawned processes run (.test-dist/, the same build as npm start's).
 */
export default async function setup(project: TestProject) {
  await buildDist(path.join(import.meta.dirname, '..', '.test-dist'), { withCli: true });
  const runDir = mkdtempSync(path.join(tmpdir(), 'gateway-test-'));
  const templatePath = path.join(runDir, 'template.sqlite');
  // Built and closed (checkpointed into one file): a byte copy of it is a consistent database.
  buildDatabase(templatePath);
  const dbPath = path.join(runDir, 'shared.sqlite');
  copyFileSync(templatePath, dbPath);
  project.provide('dbPath', dbPath);
  project.provide('templatePath', templatePath);
  project.provide('runDir', runDir);
  return () => rmSync(runDir, { recursive: true, force: true });
}
