/**
 * The server as a library, bundled beside `server` (dist/app.js): the test suite starts servers
 * in its own process from the very code `npm start` runs, with injected clocks and configs.
 */
export { startApp, type AppOptions, type RunningApp } from './app.js';
export { loadConfig, type Config } from './config.js';
