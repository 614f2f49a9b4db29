import { loadConfig, type Config } from './lib/config.js';
import { startApp, type RunningApp } from './app/start.js';
import { SetupError } from './lib/errors.js';
import { flushLogs } from './lib/logger.js';

/** What the bundle's loader (scripts/load-bundle.mjs) found of V8's code cache, and how to leave one. */
export interface CodeCache {
  /**
   * `loaded`: start-up ran on the code a warm server left; `primed`: on the code the build left by
   * loading the bundle; `none` or `rejected`: compiled anew.
   */
  status: 'loaded' | 'primed' | 'none' | 'rejected';
  /** Writes the code compiled so far for the next start (best effort: false when it could not). */
  save(): boolean;
}

/** How long the last log lines may take to reach stdout at exit; a reader that does not take them is not waited for. */
const LOG_FLUSH_MS = 1000;

/**
 * The server as `npm start` runs it: configuration from the environment, the app, and the
 * signals that stop it. Once warm, it leaves the code it compiled for the next start (unless it
 * started on the fuller cache such a run leaves).
 */
export async function runServer(codeCache?: CodeCache): Promise<void> {
  let config: Config;
  let app: RunningApp;
  try {
    config = loadConfig();
    app = await startApp({ config });
  } catch (err) {
    // What the operator must change (the environment, a process holding the database) is said in
    // a sentence, without a stack trace; anything else is a bug and keeps its stack.
    if (!(err instanceof SetupError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  app.logger.info({ url: app.url, codeCache: codeCache?.status ?? 'off' }, `serving REST at ${app.url}/api and GraphQL at ${app.url}/graphql`);
  // Started without the cache a warm server leaves: leave one, once, when warm (start-up, the
  // warm-up and the first requests compiled) or at a clean stop before that, whichever comes first.
  let cacheLeft = !codeCache || codeCache.status === 'loaded';
  const leaveCodeCache = (when: 'warm' | 'shutdown') => {
    if (cacheLeft) return;
    cacheLeft = true;
    if (codeCache!.save()) app.logger.info({ when }, 'code cache written for the next start');
  };
  void app.ready().then(() => leaveCodeCache('warm'));

  // SIGTERM (or Ctrl-C): stop accepting, let requests in flight finish within the grace period,
  // then close every connection, stop background work and exit. Always: a timer ends the process
  // if anything holds it past the grace period, and a second signal ends it at once. Nothing on the
  // way out writes synchronously (logger.ts), so a stuck log reader cannot hold the process.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) {
        app.logger.warn({ signal }, 'second signal: exiting now');
        process.exit(1);
      }
      stopping = true;
      // Closing first: its first step stops listening, so once "shutting down" is in the log no new
      // connection gets in (the line can reach a reader before the next statement runs: logs are
      // written from the thread pool).
      const closing = app.close(config.shutdownGraceMs);
      app.logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
      setTimeout(
        () => {
          app.logger.error({ graceMs: config.shutdownGraceMs }, 'shutdown did not finish in time: exiting');
          process.exit(1);
        },
        config.shutdownGraceMs + LOG_FLUSH_MS + 1000,
      ).unref();
      void closing
        .then(() => {
          leaveCodeCache('shutdown');
          app.logger.info('shut down');
        })
        .catch((err) => app.logger.error({ err }, 'shutdown failed'))
        .finally(() => flushLogs(LOG_FLUSH_MS).then(() => process.exit(0)));
    });
  }
}
