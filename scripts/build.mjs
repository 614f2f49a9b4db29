// npm run build: bundles src/ into dist/ with esbuild. The server is one CommonJS script,
// dist/bundle.cjs, loaded by dist/server.js (npm start) and dist/app.js (the same code as a
// library, for the test suite) through dist/load.js, which gives V8 the code a previous run
// compiled (scripts/load-bundle.mjs): Node 20 caches nothing for ES modules, and compiling was
// the largest part of start-up. Measured here, the first answer came 910 ms after start with tsc's
// per-file output, 690 ms with an ES-module bundle (later ~210 ms) and ~160 ms with the cache.
// `npm test` type-checks src/ with tsc and runs its HTTP tests against this very bundle.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const defaultOutdir = path.join(root, 'dist');

/** The command-line tools, bundled only on request (the tests run them many times; npm scripts use tsx). */
const CLI_ENTRIES = { keys: 'src/cli/keys.ts', import: 'src/cli/import.ts', 'build-db': 'src/cli/build-db.ts' };

/** dist/server.js: what `npm start` runs. */
const SERVER_JS = "import { loadBundle } from './load.js';\n\nconst { exports, codeCache } = loadBundle();\nawait exports.runServer(codeCache);\n";
/** dist/app.js: the server as a library, from the same bundle. */
const APP_JS = "import { loadBundle } from './load.js';\n\nexport const { startApp, loadConfig } = loadBundle().exports;\n";

/**
 * One copy of each library in the bundle.
 * - graphql ships an ESM build (*.mjs) and a CommonJS build (*.js). ESM importers get the first,
 *   CommonJS `require`s (graphql-jit's) the second: two copies of every class, and graphql refuses
 *   to mix them ("Cannot use GraphQLNonNull from another module or realm"), which broke every
 *   `__typename` and introspection. Every import of graphql, whatever its kind, gets the ESM build.
 * - Other dual packages: a `require` gets the build an `import` gets (esbuild wraps it for require).
 * - npm installs the same version of a package in several nested node_modules when a different
 *   version sits at the top; those copies are identical, and the bundle takes the first.
 */
const oneCopyEach = {
  name: 'one-copy-each',
  setup(b) {
    // The real path: esbuild resolves through symlinks (a linked node_modules), and so must this.
    const graphqlDir = realpathSync(path.join(root, 'node_modules', 'graphql'));
    b.onResolve({ filter: /^graphql(\/.*)?$/ }, (args) => {
      const sub = args.path
        .slice('graphql'.length)
        .replace(/^\//, '')
        .replace(/\.m?js$/, '');
      const file = sub ? path.join(graphqlDir, `${sub}.mjs`) : path.join(graphqlDir, 'index.mjs');
      return { path: existsSync(file) ? file : path.join(graphqlDir, sub, 'index.mjs') };
    });
    const firstDirOf = new Map();
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'again') return undefined;
      const kind = args.kind === 'require-call' ? 'import-statement' : args.kind;
      const resolved = await b.resolve(args.path, { kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'again' });
      if (resolved.errors.length > 0 || resolved.external || !resolved.path) return resolved.errors.length > 0 ? { errors: resolved.errors } : resolved;
      const m = resolved.path.match(/^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\/(.*)$/);
      if (!m) return resolved;
      const [, dir, name, rest] = m;
      const version = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
      const key = `${name}@${version}`;
      if (!firstDirOf.has(key)) firstDirOf.set(key, dir);
      const first = firstDirOf.get(key);
      return { ...resolved, path: path.join(first, rest) };
    });
  },
};

/**
 * Library code that can never run here, left out of the bundle: every byte of the bundle is read
 * at start-up (and parsed on a start without a code cache), and these were a quarter of it.
 * - graphql-jit requires fast-json-stringify (with ajv, ajv-formats and fast-uri, ~450 KB) for its
 *   `customJSONSerializer` option, which we never turn on (graphql/executor.ts): a stub that
 *   throws if it is ever called.
 * - zod's messages in 40 languages (~360 KB): only English, the default, is ever used.
 * - @graphql-yoga/plugin-defer-stream's validation rules import graphql-yoga, all of it with the
 *   Fetch-API server under it (~360 KB), for one function that graphql-yoga re-exports from
 *   @graphql-tools/utils: they get it from there, and Yoga loads when a request first needs it.
 */
const onlyWhatRuns = {
  name: 'only-what-runs',
  setup(b) {
    b.onResolve({ filter: /^fast-json-stringify$/ }, () => ({ path: 'fast-json-stringify', namespace: 'unused' }));
    b.onLoad({ filter: /.*/, namespace: 'unused' }, () => ({
      contents: "module.exports = () => { throw new Error('fast-json-stringify is left out of the bundle: graphql-jit customJSONSerializer is off'); };",
      loader: 'js',
    }));
    b.onResolve({ filter: /^graphql-yoga$/ }, (args) => {
      if (!args.importer.includes('/@graphql-yoga/plugin-defer-stream/')) return undefined;
      return b.resolve('@graphql-tools/utils', { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer });
    });
    b.onLoad({ filter: /node_modules\/zod\/v4\/locales\/index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";', loader: 'js' }));
  },
};

/** Directory names packages use for their alternative builds of the same modules. */
const FLAVOUR_DIRS = /^(cjs|esm|mjs|commonjs|es|es\d{4}|module|umd)$/;

/**
 * Every library at most once in the bundle: one installed copy (no second version from a nested
 * node_modules) and one build of each module (not both its ESM and CommonJS files). Returns the
 * offences, from esbuild's metafile.
 */
export function duplicatesIn(metafile) {
  const dirsByPackage = new Map();
  const filesByModule = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const m = input.match(/^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\/(.*)$/);
    if (!m) continue;
    const [, dir, name, rest] = m;
    if (!dirsByPackage.has(name)) dirsByPackage.set(name, new Set());
    dirsByPackage.get(name).add(dir);
    const module = `${dir}:${rest
      .replace(/\.(mjs|cjs|js)$/, '')
      .split('/')
      .filter((s) => !FLAVOUR_DIRS.test(s))
      .join('/')}`;
    if (!filesByModule.has(module)) filesByModule.set(module, []);
    filesByModule.get(module).push(input);
  }
  const problems = [];
  for (const [name, dirs] of dirsByPackage) {
    if (dirs.size > 1) problems.push(`${name} is bundled from ${dirs.size} installed copies: ${[...dirs].join(', ')}`);
  }
  const twice = [...filesByModule.values()].filter((files) => files.length > 1);
  const byPackage = new Map();
  for (const files of twice) {
    const dir = files[0].match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//)[1];
    if (!byPackage.has(dir)) byPackage.set(dir, files);
  }
  for (const [dir, files] of byPackage) problems.push(`${dir} is bundled in two builds (e.g. ${files.join(' and ')})`);
  return problems;
}

/**
 * Bundles into `outdir` (dist/ for npm start; the tests build their own copy with the CLIs, see
 * test/global-setup.ts). Fails when the bundle would hold any library twice.
 */
export async function buildDist(outdir = defaultOutdir, { withCli = false } = {}) {
  rmSync(outdir, { recursive: true, force: true });
  const common = {
    absWorkingDir: root,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    // Less text for V8 to parse when there is no cache yet; names stay, so stack traces and CPU
    // profiles still read as the source does.
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    plugins: [onlyWhatRuns, oneCopyEach],
    // A native addon; geo-tz (it reads data files beside its code); GraphiQL's page (8 MB of
    // script, loaded by the first request for /graphql's page): loaded from node_modules. ws's
    // optional native helpers (bufferutil, utf-8-validate) are tried in a try/catch: not installed.
    external: ['better-sqlite3', 'geo-tz', '@graphql-yoga/render-graphiql', 'bufferutil', 'utf-8-validate'],
    mainFields: ['module', 'main'],
    logLevel: 'warning',
  };
  // The server: one script. What only some requests need (the incremental engine, the WebSocket
  // transport, graphql-jit, Redis, metrics, tracing) is still imported lazily, so it is in the script but not run until asked for.
  const server = await build({
    ...common,
    entryPoints: { bundle: 'src/bundle-entry.ts' },
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    // import.meta means nothing in a CommonJS script: its URL is the script's own.
    define: { 'import.meta.url': '__bundle_url' },
    // A dynamic import of what stays outside (GraphiQL's page, node's http for the trace exporter)
    // becomes a require: a script run through node:vm has no import() of its own on Node 20.
    supported: { 'dynamic-import': false },
    banner: { js: 'var __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
  });
  // The command-line tools, for the tests: ES modules sharing chunks among themselves.
  const cli = withCli
    ? await build({
        ...common,
        entryPoints: CLI_ENTRIES,
        splitting: true,
        format: 'esm',
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
      })
    : null;
  const duplicates = [server, cli].flatMap((result) => (result ? duplicatesIn(result.metafile) : []));
  if (duplicates.length > 0) {
    rmSync(outdir, { recursive: true, force: true });
    throw new Error(`The bundle would hold a library twice; fix the dependency tree (package.json overrides) or the build:\n- ${duplicates.join('\n- ')}`);
  }
  copyFileSync(path.join(root, 'scripts', 'load-bundle.mjs'), path.join(outdir, 'load.js'));
  writeFileSync(path.join(outdir, 'server.js'), SERVER_JS);
  writeFileSync(path.join(outdir, 'app.js'), APP_JS);
  writeFileSync(path.join(outdir, 'meta.json'), JSON.stringify(server.metafile));
  primeCodeCaches(outdir);
  writeFileSync(path.join(outdir, '.built'), new Date().toISOString());
}

/**
 * The code cache of loading the bundle, for both ways the server is started: `node dist/server.js`
 * (no flags) and `npm start` (its node flags, from package.json); V8 keeps one per set of flags.
 * Best effort: without it the first start compiles the script itself.
 */
function primeCodeCaches(outdir) {
  // npm start's command: environment assignments (NAME=value), then node and its flags.
  const start = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
    .scripts.start.split(/\s+/)
    .filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w));
  const npmStartFlags = start[0] === 'node' ? start.slice(1).filter((a) => a.startsWith('--')) : [];
  for (const flags of [[], npmStartFlags]) {
    const primed = spawnSync(process.execPath, [...flags, path.join(root, 'scripts', 'prime-code-cache.mjs'), outdir], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    if (primed.status !== 0) process.stderr.write(`warning: no code cache primed for node ${flags.join(' ')}: ${primed.stderr.trim().slice(0, 300)}\n`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await buildDist();
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
