/**
 * The bundle (dist/bundle.cjs): what `npm start` runs (runServer, through dist/server.js) and the
 * server as a library (dist/app.js), so the test suite starts servers in its own process from the
 * very code `npm start` runs, with injected clocks and configs.
 */
export { runServer, type CodeCache } from './main.js';
export { startApp, type AppOptions, type RunningApp } from './app/start.js';
export { loadConfig, type Config } from './lib/config.js';
