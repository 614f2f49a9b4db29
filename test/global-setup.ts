import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { buildDatabase } from '../src/data/db/build.js';
import { openDatabase } from '../src/data/db/open.js';
import { simulatedProvider } from '../src/providers/simulated.js';
import { createRepositories } from '../src/data/repositories/index.js';
import { WeatherWindow } from '../src/weather/window.js';
// @ts-expect-error: plain JavaScript, no declarations
import { buildDist } from '../scripts/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The same database as built, never opened by a server: private copies are plain file copies of it. */
    templatePath: string;
    /** Where the run's temporary files go; removed when the run ends. */
    runDir: string;
    /** The run's clock (test/helpers/clock.ts): the instant it read when the run began, and the wall clock's then. */
    clock: { start: string; wallAtStart: number };
  }
}

/**
 * The date every server of the run lives on: fixed, so that a run gives the same answers in any
 * season and on any day (a run across UTC midnight too). Noon UTC: resort answers change by the
 * hour, and a run of minutes stays within one. TEST_CLOCK_START runs the suite on another day.
 */
const CLOCK_START = process.env.TEST_CLOCK_START ?? '2027-01-15T12:00:00.000Z';

/**
 * Builds one real SQLite database for the run, which each test file's servers get a copy of, and
 * the bundles the spawned processes run (.test-dist/, the same build as npm start's).
 */
export default async function setup(project: TestProject) {
  await buildDist(path.join(import.meta.dirname, '..', '.test-dist'), { withCli: true });
  return provideDatabase(project);
}

/**
 * The run's database, directory and clock without the bundles: what the unit tests need (the
 * mutation configuration's setup, vitest.mutation.config.ts), where the source is what is tested.
 */
export async function provideDatabase(project: TestProject) {
  const clock = { start: CLOCK_START, wallAtStart: Date.now() };
  const runNow = () => new Date(Date.parse(clock.start) + (Date.now() - clock.wallAtStart));
  const runDir = mkdtempSync(path.join(tmpdir(), 'gateway-test-'));
  const templatePath = path.join(runDir, 'template.sqlite');
  buildDatabase(templatePath);
  await writeTheRunsWindow(templatePath, runNow);
  project.provide('templatePath', templatePath);
  project.provide('runDir', runDir);
  project.provide('clock', clock);
  return () => rmSync(runDir, { recursive: true, force: true });
}

/**
 * The weather window of the run's day, as the first start of a server writes it: every test
 * server runs on the run's clock unless given another, and each would otherwise write it again
 * into its own copy. Then the WAL is folded into the file and the file left in rollback mode, so
 * that a byte copy of it is the whole, consistent database. Tests that need the window missing
 * ask for a copy without it (`privateDatabase(prefix, { weather: false })`).
 */
async function writeTheRunsWindow(file: string, now: () => Date): Promise<void> {
  const db = openDatabase(file);
  try {
    const repos = createRepositories(db);
    await new WeatherWindow(repos.resorts, repos.weather, simulatedProvider, now, pino({ level: 'silent' })).ensureCurrent();
  } finally {
    db.close();
  }
  const raw = new Database(file);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.pragma('journal_mode = DELETE');
  raw.close();
}
