import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDir } from '../helpers/server.js';

/**
 * The linter CI runs (`npm run lint`, Biome with the project's biome.json) catches what it is
 * there for: a promise left floating, one used where a condition or a void callback is meant, an
 * await of something that is not a promise. Checked on probe files, with the project's own rules
 * (a configuration that extends biome.json), so a rule turned off or a Biome that stopped seeing
 * them fails here.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIOME = path.join(path.dirname(createRequire(import.meta.url).resolve('@biomejs/biome/package.json')), 'bin', 'biome');

function lint(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const dir = testDir('lint-probe-');
  writeFileSync(
    path.join(dir, 'biome.json'),
    JSON.stringify({ extends: [path.join(ROOT, 'biome.json')], vcs: { enabled: false }, files: { includes: ['**/*.ts'] } }),
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return new Promise((resolve) => {
    execFile(process.execPath, [BIOME, 'lint', '--max-diagnostics=50', ...Object.keys(files)], { cwd: dir }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

const LATER = 'export async function later(): Promise<number> {\n  return 1;\n}\n';

describe('the linter', () => {
  it('fails on a floating promise, also one returned by a function of another file', async () => {
    const r = await lint({ 'later.ts': LATER, 'caller.ts': "import { later } from './later.ts';\n\nexport function caller(): void {\n  later();\n}\n" });
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/caller\.ts:4:3 lint\/nursery\/noFloatingPromises/);
  });

  it('fails on a promise where a condition is meant, and on awaiting what is not a promise', async () => {
    const r = await lint({
      'later.ts': LATER,
      'misuse.ts':
        "import { later } from './later.ts';\n\nexport async function misuse(n: number): Promise<number> {\n  if (later()) return 1;\n  return await n;\n}\n",
    });
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/lint\/nursery\/noMisusedPromises/);
    expect(r.output).toMatch(/lint\/nursery\/useAwaitThenable/);
  });

  it('passes the same code with its promises handled', async () => {
    const r = await lint({
      'later.ts': LATER,
      'caller.ts': "import { later } from './later.ts';\n\nexport async function caller(): Promise<void> {\n  await later();\n  void later();\n}\n",
    });
    expect(r.output).not.toMatch(/lint\//);
    expect(r.code).toBe(0);
  });
});
