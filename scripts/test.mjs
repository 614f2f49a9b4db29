// npm test: the type check and the suite side by side (the type check is single-threaded and
// the suite leaves some of the machine idle, so running them one after the other only added its
// seconds to the wall time). Fails when either fails; the type check's output comes after the
// suite's, so it is not lost in it. Arguments go to vitest (`npm test -- test/zip-rest.test.ts`).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
/** A package's command-line script, by its path inside the package (not every package exports it). */
const bin = (pkg, file) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
const run = (script, args, stdio) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { stdio });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });

const typecheck = run(bin('typescript', 'bin/tsc'), ['--noEmit'], ['ignore', 'pipe', 'pipe']);
const suite = run(bin('vitest', 'vitest.mjs'), ['run', ...process.argv.slice(2)], 'inherit');
const [types, tests] = await Promise.all([typecheck, suite]);
if (types.code !== 0) {
  process.stderr.write(`\ntsc --noEmit failed:\n${types.output}`);
  // CI's closing line (scripts/test-totals.mjs) counts it as a failure, not only the exit code.
  const totalsFile = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '.test-totals.json');
  if (existsSync(totalsFile)) {
    const totals = JSON.parse(readFileSync(totalsFile, 'utf8'));
    totals.failedSuites.push(`tsc --noEmit: ${(types.output.match(/error TS\d+/g) ?? []).length} type errors`);
    writeFileSync(totalsFile, JSON.stringify(totals));
  }
}
process.exit(types.code !== 0 ? types.code : tests.code);
