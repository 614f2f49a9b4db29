import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * CI's closing line (scripts/test-totals.mjs over test/reporters/totals.ts) against a fixture suite
 * that goes wrong in every way a run can: a setup hook that throws, a file that cannot load, an
 * unhandled rejection, a file that never runs, fewer tests than the floor, more than it, a floor
 * lowered without a word, a test skipped while its input is there — and under CI=true, nothing
 * in the environment loosens it.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'totals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runFixtures(totals: string, files: string[] = []) {
  return spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/totals/vitest.config.ts', ...files], {
    env: { ...process.env, TEST_TOTALS_FILE: totals },
    encoding: 'utf8',
  });
}

/** The script outside CI (where the suite's own test may point it at fixtures), or under CI=true. */
function script(args: string[], env: Record<string, string>, ci = false) {
  const r = spawnSync(process.execPath, ['scripts/test-totals.mjs', ...args], { env: { ...process.env, CI: ci ? 'true' : '', ...env }, encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n');
  return { status: r.status, lines, last: lines.at(-1) };
}

const NO_SHARED_DATA = path.join(dir, 'no-such-shared-data');

function closingLine(totals: string, floor: number | Record<string, unknown>, env: Record<string, string> = {}) {
  const floorFile = path.join(dir, `floor-${JSON.stringify(floor).replace(/\W/g, '')}.json`);
  writeFileSync(floorFile, JSON.stringify(typeof floor === 'number' ? { tests: floor } : floor));
  return script([totals], {
    TEST_TOTALS_PARTIAL: '',
    TEST_TOTALS_DIR: 'test/fixtures/totals',
    TEST_TOTALS_SUFFIX: '.check.ts',
    TEST_TOTALS_FLOOR: floorFile,
    TEST_TOTALS_SHARED_DATA: NO_SHARED_DATA,
    ...env,
  });
}

describe('the closing line', () => {
  it('counts a throwing hook, a file that cannot load, an unhandled error, a file that never ran and a short run as failures', () => {
    const totals = path.join(dir, 'all.json');
    expect(runFixtures(totals).status).not.toBe(0);
    const line = closingLine(totals, 10);
    expect(line.last).toBe('2 passed, 5 failed, 3 skipped');
    expect(line.status).toBe(1);
    expect(line.lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^failed outside a test: test\/fixtures\/totals\/hook-throws\.check\.ts › a suite whose setup throws: Error: setup failed$/),
        expect.stringMatching(/^failed outside a test: test\/fixtures\/totals\/cannot-load\.check\.ts: Error: this file cannot load$/),
        expect.stringMatching(/^unhandled error: .*nobody handled this/),
        'never ran: test/fixtures/totals/never-runs.check.ts',
        'only 5 tests (2 ran, 3 skipped); test/floor.json expects 10',
        'skipped: test/fixtures/totals/shared-data.check.ts › reads the shared data — ../shared/data is absent (third-party reference data)',
        'skipped: test/fixtures/totals/hook-throws.check.ts › a suite whose setup throws > would pass — not run: its suite "a suite whose setup throws" failed outside a test',
      ]),
    );
  });

  it('is plain success when every expected file ran, passed and met the floor', () => {
    const totals = path.join(dir, 'one.json');
    expect(runFixtures(totals, ['test/fixtures/totals/passes.check.ts']).status).toBe(0);
    const r = script([totals], { TEST_TOTALS_PARTIAL: '1' });
    expect(r.last).toBe('1 passed, 0 failed');
    expect(r.status).toBe(0);
  });

  it('counts each failed check of .ci/run (codegen, API compatibility, lint, format), even when every test passed', () => {
    const totals = path.join(dir, 'checks.json');
    expect(runFixtures(totals, ['test/fixtures/totals/passes.check.ts']).status).toBe(0);
    const checks = path.join(dir, 'checks.txt');
    writeFileSync(checks, 'npm run lint\nnpm run format: the code is not formatted\n');
    const r = script([totals, checks], { TEST_TOTALS_PARTIAL: '1' });
    expect(r.lines).toEqual(['failed check: npm run lint', 'failed check: npm run format: the code is not formatted', '1 passed, 2 failed']);
    expect(r.status).toBe(1);
    // No check file, or an empty one: only the suite counts.
    writeFileSync(checks, '');
    expect(script([totals, checks], { TEST_TOTALS_PARTIAL: '1' }).last).toBe('1 passed, 0 failed');
  });

  it('the floor is the count of tests: more than it fails too (raise it), and lowering it must name what was removed', () => {
    const totals = path.join(dir, 'floor.json');
    runFixtures(totals);
    // 2 ran and 3 skipped: 5 tests exist.
    expect(closingLine(totals, 4).lines).toContain('5 tests exist; test/floor.json says 4: raise it to 5');
    expect(closingLine(totals, 5).lines.filter((l) => /floor/.test(l))).toEqual([]);
    const previous = path.join(dir, 'previous-floor.json');
    writeFileSync(previous, JSON.stringify({ tests: 7 }));
    expect(closingLine(totals, 5, { TEST_TOTALS_PREVIOUS_FLOOR: previous }).lines).toContain(
      'test/floor.json went from 7 to 5: name each removed test and why in its "removed" list',
    );
    const named = {
      tests: 5,
      removed: [
        { test: 'a.test.ts › one', why: 'merged into two' },
        { test: 'a.test.ts › three', why: 'the feature went' },
      ],
    };
    expect(closingLine(totals, named, { TEST_TOTALS_PREVIOUS_FLOOR: previous }).lines.filter((l) => /floor/.test(l))).toEqual([]);
  });

  it('a test skipped for want of ../shared/data fails while ../shared/data is there', () => {
    const totals = path.join(dir, 'shared.json');
    runFixtures(totals, ['test/fixtures/totals/shared-data.check.ts', 'test/fixtures/totals/passes.check.ts']);
    const there = mkdtempSync(path.join(dir, 'shared-data-'));
    const r = script([totals], { TEST_TOTALS_PARTIAL: '1', TEST_TOTALS_SHARED_DATA: there });
    expect(r.lines).toEqual([
      'skipped while ../shared/data is there: test/fixtures/totals/shared-data.check.ts › reads the shared data',
      '1 passed, 1 failed, 1 skipped',
    ]);
    expect(r.status).toBe(1);
    expect(script([totals], { TEST_TOTALS_PARTIAL: '1', TEST_TOTALS_SHARED_DATA: NO_SHARED_DATA }).status).toBe(0);
  });

  it('under CI=true no variable loosens it: a partial run of the fixtures is a run with the whole suite missing', () => {
    const totals = path.join(dir, 'ci.json');
    expect(runFixtures(totals, ['test/fixtures/totals/passes.check.ts']).status).toBe(0);
    const r = script([totals], { TEST_TOTALS_PARTIAL: '1', TEST_TOTALS_DIR: 'test/fixtures/totals', TEST_TOTALS_FLOOR: path.join(dir, 'floor-1.json') }, true);
    expect(r.status).toBe(1);
    expect(r.lines).toContain('never ran: test/totals.test.ts');
    expect(r.lines.some((l) => l.startsWith('only 1 tests'))).toBe(true);
  });

  it('fails when the suite wrote no totals at all', () => {
    const line = closingLine(path.join(dir, 'absent.json'), 1);
    expect(line.last).toMatch(/^0 passed, 1 failed/);
    expect(line.status).toBe(1);
  });
});
