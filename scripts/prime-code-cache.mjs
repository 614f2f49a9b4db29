// Run by scripts/build.mjs as `node [flags] scripts/prime-code-cache.mjs <dist>`: loads the new
// bundle once, as a server started with the same flags would, and leaves the code compiled by
// loading it (dist/bundle.cjs.<key>.primed.cache), so even the first start after a build skips
// compiling the script. A server that started on it leaves a fuller cache once warm.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const { loadBundle } = await import(pathToFileURL(path.join(path.resolve(process.argv[2]), 'load.js')).href);
process.exit(loadBundle().codeCache.save('primed') ? 0 : 1);
