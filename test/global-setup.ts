import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildDatabase } from '../src/db/build.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dbPath: string;
  }
}

/** Builds one real SQLite database for the run; every test server opens it. */
export default function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gateway-test-'));
  const dbPath = path.join(dir, 'gateway.sqlite');
  buildDatabase(dbPath);
  project.provide('dbPath', dbPath);
  return () => rmSync(dir, { recursive: true, force: true });
}
