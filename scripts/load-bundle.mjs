// Copied by scripts/build.mjs to dist/load.js: loads dist/bundle.cjs, the whole server in one
// script, with V8's code cache. Node 20 keeps no compiled code between runs of ES modules, and
// compiling the bundle was the largest part of start-up; a script compiled through node:vm can be
// given the code a previous run compiled (functions compiled during start-up and the warm-up
// included), so a restart skips parsing and compiling what it has run before.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const filename = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bundle.cjs');

/**
 * The cache file for this bundle under this node and these flags: V8 refuses code cached by
 * another version or under other flags (npm start's memory flags included), and checks only the
 * length of the source, so the name carries node's version and flags beside the bundle's size and
 * time (a rebuild also empties dist/). Each way of starting keeps a cache of its own.
 */
function cacheFileFor(source) {
  const { size, mtimeMs } = statSync(filename);
  const key = createHash('sha1')
    .update(JSON.stringify([process.version, process.arch, process.execArgv, size, mtimeMs, source.length]))
    .digest('hex')
    .slice(0, 16);
  return `${filename}.${key}.cache`;
}

/**
 * The build's own cache (scripts/prime-code-cache.mjs): the code compiled by loading the bundle,
 * without starting a server. A first start after a build uses it until a server leaves a fuller one.
 */
const primedFileOf = (cacheFile) => cacheFile.replace(/\.cache$/, '.primed.cache');

function readOrUndefined(file) {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

let loaded = null;

/** The bundle's exports, and what became of the code cache (`codeCache`, for runServer). Loaded once per process. */
export function loadBundle() {
  if (loaded) return loaded;
  const source = readFileSync(filename, 'utf8');
  const cacheFile = cacheFileFor(source);
  const left = readOrUndefined(cacheFile);
  const cachedData = left ?? readOrUndefined(primedFileOf(cacheFile));
  // The same wrapper node gives a CommonJS module (the bundle has no import(): build.mjs makes
  // each a require).
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename,
    cachedData,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(filename), module, filename, path.dirname(filename));
  const codeCache = {
    status: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : left ? 'loaded' : 'primed',
    /**
     * Writes what is compiled by now beside the bundle (the build's `primed` one, or the fuller one
     * a server leaves), atomically; false when the directory is read-only or full.
     */
    save(kind = 'left') {
      const target = kind === 'primed' ? primedFileOf(cacheFile) : cacheFile;
      const temporary = `${target}.${process.pid}.tmp`;
      try {
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, target);
        return true;
      } catch {
        rmSync(temporary, { force: true });
        return false;
      }
    },
  };
  loaded = { exports: module.exports, codeCache };
  return loaded;
}
