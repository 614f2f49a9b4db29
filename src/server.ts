import { loadConfig } from './config.js';
import { startApp } from './app.js';
import { flushLogs } from './logger.js';

const config = loadConfig();
const app = await startApp({ config });
app.logger.info({ url: app.url }, `serving REST at ${app.url}/api and GraphQL at ${app.url}/graphql`);

// SIGTERM (or Ctrl-C): stop accepting, let requests in flight finish within the grace period,
// then close every connection, stop background work and exit. Always: a timer ends the process
// if anything holds it past the grace period, and a second signal ends it at once.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    app.logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    setTimeout(() => {
      flushLogs();
      process.exit(1);
    }, config.shutdownGraceMs + 5000).unref();
    void app
      .close(config.shutdownGraceMs)
      .catch((err) => app.logger.error({ err }, 'shutdown failed'))
      .finally(() => {
        flushLogs();
        process.exit(0);
      });
  });
}
