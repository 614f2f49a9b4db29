// npm run build: bundles src/ into dist/ with esbuild. One file (plus a shared chunk and the lazily
// loaded Yoga/GraphiQL chunk) starts much faster than hundreds of modules: measured here, the first
// answered request came 910 ms after start with tsc's per-file output and 690 ms with the bundle.
// `npm test` still type-checks with tsc; the bundle is only what `npm start` runs.
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const defaultOutdir = path.join(root, 'dist');

/** The command-line tools, bundled only on request (the tests run them many times; npm scripts use tsx). */
const CLI_ENTRIES = { keys: 'src/cli/keys.ts', import: 'src/cli/import.ts', 'build-db': 'src/cli/build-db.ts' };

/**
 * Bundles into `outdir` (dist/ for npm start; the tests build their own copy with the CLIs, see
 * test/global-setup.ts).
 */
export async function buildDist(outdir = defaultOutdir, { withCli = false } = {}) {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { server: 'src/server.ts', ...(withCli ? CLI_ENTRIES : {}) },
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // A native addon, and geo-tz (it reads data files beside its code): loaded from node_modules.
    external: ['better-sqlite3', 'geo-tz'],
    mainFields: ['module', 'main'],
    // CommonJS dependencies bundled into ESM still reach for require, __dirname and __filename.
    banner: {
      js: [
        "import { createRequire as __createRequire } from 'node:module';",
        "import { fileURLToPath as __fileURLToPath } from 'node:url';",
        "import { dirname as __pathDirname } from 'node:path';",
        'const require = __createRequire(import.meta.url);',
        'const __filename = __fileURLToPath(import.meta.url);',
        'const __dirname = __pathDirname(__filename);',
      ].join(' '),
    },
    logLevel: 'warning',
  });
  writeFileSync(path.join(outdir, '.built'), new Date().toISOString());
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildDist();
