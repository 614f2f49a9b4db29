import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { startApp, type RunningApp } from '../../src/app/start.js';
import { loadConfig } from '../../src/lib/config.js';
import { movableClock } from '../helpers/clock.js';
import { capturedLog, privateDatabase, suiteConfig, type TestServerOptions } from '../helpers/server.js';

/** The suite's config (suiteConfig), over the environment given (its variables parsed as a start parses them). */
export type SourceAppOptions = Pick<TestServerOptions, 'config'> & {
  env?: NodeJS.ProcessEnv;
  /** What the server logs for the test to read (`info` adds a line per request, with its cost). */
  logLevel?: 'info' | 'warn';
};

/**
 * The whole server from src/ (app/start.ts: the dispatcher, the pipeline, every transport) on an
 * ephemeral port over a private copy of the run's database, on a clock the test moves: what the
 * transports' mutants reach, which the bundle the HTTP-level tests start never does.
 */
export async function startSourceApp(prefix: string, options: SourceAppOptions = {}) {
  const file = privateDatabase(prefix);
  const clock = movableClock(inject('clock').start);
  const log = capturedLog(options.logLevel ?? 'warn');
  let app: RunningApp;
  try {
    app = await startApp({ config: suiteConfig(loadConfig(options.env ?? {}), file, options), now: clock.now, logger: log.logger });
    await app.ready();
  } catch (err) {
    rmSync(path.dirname(file), { recursive: true, force: true });
    throw err;
  }
  return {
    ...app,
    clock,
    log: log.lines,
    /** Closes the server and removes its database copy (Stryker runs a file once per mutant: 15 MB each time). */
    close: async () => {
      await app.close();
      rmSync(path.dirname(file), { recursive: true, force: true });
    },
  };
}
export type SourceApp = Awaited<ReturnType<typeof startSourceApp>>;

/** One such server for a file's tests: started before them, closed and its copy removed after. */
export function sharedSourceApp(prefix: string, options: SourceAppOptions = {}): () => SourceApp {
  let app: SourceApp | undefined;
  beforeAll(async () => {
    app = await startSourceApp(prefix, options);
  });
  afterAll(() => app?.close());
  return () => app!;
}
