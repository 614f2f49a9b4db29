// npm start: runs the bundled server (dist/), building it first when dist/ is missing or older than
// any source. tsx stays for development and tests; production runs plain JavaScript, which starts
// faster and keeps no transpiler in memory.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.built');

function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(file) : statSync(file).mtimeMs);
  }
  return t;
}

// The bench builds once, then starts many servers: it asks them not to look again.
const inputs =
  process.env.GATEWAY_NO_REBUILD === '1' && existsSync(stamp)
    ? 0
    : Math.max(
        newest(path.join(root, 'src')),
        ...['package.json', 'package-lock.json', 'scripts/build.mjs', 'scripts/load-bundle.mjs', 'scripts/prime-code-cache.mjs'].map(
          (f) => statSync(path.join(root, f)).mtimeMs,
        ),
      );
if (!existsSync(stamp) || statSync(stamp).mtimeMs < inputs) {
  process.stderr.write('building dist/ from src/ …\n');
  const { buildDist } = await import('./build.mjs');
  await buildDist();
}
await import(path.join(root, 'dist', 'server.js'));
