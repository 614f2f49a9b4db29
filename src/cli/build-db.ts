import { loadConfig } from '../lib/config.js';
import { buildDatabase } from '../data/db/build.js';
import { SetupError } from '../lib/errors.js';

// Rebuilds the database from the committed and packaged sources, atomically; refused while a
// server holds the file (it would go on serving the old one).
try {
  const config = loadConfig();
  const started = performance.now();
  buildDatabase(config.dbPath);
  console.log(`built ${config.dbPath} in ${Math.round(performance.now() - started)} ms`);
} catch (err) {
  if (!(err instanceof SetupError)) throw err;
  console.error(err.message);
  process.exit(2);
}
