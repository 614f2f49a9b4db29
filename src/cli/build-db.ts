import { loadConfig } from '../config.js';
import { buildDatabase } from '../db/build.js';

// Rebuilds the database from the committed and packaged sources, atomically.
const config = loadConfig();
const started = performance.now();
buildDatabase(config.dbPath);
console.log(`built ${config.dbPath} in ${Math.round(performance.now() - started)} ms`);
