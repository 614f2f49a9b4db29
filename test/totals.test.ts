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
/** The words the fixture's shared-data test skips with, as a floor file names them. */
const FIXTURE_SKIP = '../shared/data is absent (third-party reference data)';
/** A floor file's content: its history (a count alone is a history of one), the skip reason allowed. */
const floorOf = (floor: number | { tests: number; removed?: unknown[] }[]) => ({
  sharedDataAbsent: FIXTURE_SKIP,
  history: typeof floor === 'number' ? [{ tests: floor }] : floor,
});

function closingLine(totals: string, floor: number | { tests: number; removed?: unknown[] }[], env: Record<string, string> = {}) {
  const floorFile = path.join(dir, `floor-${JSON.stringify(floor).replace(/\W/g, '')}.json`);
  writeFileSync(floorFile, JSON.stringify(floorOf(floor)));
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

  it('the floor is the count of tests: more than it fails too (add an entry), and lowering it must name what was removed', () => {
    const totals = path.join(dir, 'floor.json');
    runFixtures(totals);
    const floorLines = (floor: Parameters<typeof closingLine>[1], env: Record<string, string> = {}) =>
      closingLine(totals, floor, env).lines.filter((l) => /floor/.test(l));
    // 2 ran and 3 skipped: 5 tests exist.
    expect(floorLines(4)).toEqual(['5 tests exist; test/floor.json says 4: add { "tests": 5 } at the end of its history']);
    expect(floorLines(5)).toEqual([]);
    const two = [
      { test: 'a.test.ts › one', why: 'merged into two' },
      { test: 'a.test.ts › three', why: 'the feature went' },
    ];
    // Lowered with no word, or with one test named of two: refused. Both named: a floor of 5.
    const lowering = 'test/floor.json\'s history goes from 7 to 5: that entry\'s "removed" must name each of the 2 tests removed, with why';
    expect(floorLines([{ tests: 7 }, { tests: 5 }])).toEqual([lowering]);
    expect(floorLines([{ tests: 7 }, { tests: 5, removed: two.slice(1) }])).toEqual([lowering]);
    expect(floorLines([{ tests: 7 }, { tests: 5, removed: [two[0], { test: 'a.test.ts › three', why: '' }] }])).toEqual([lowering]);
    expect(floorLines([{ tests: 7 }, { tests: 5, removed: two }])).toEqual([]);
    // A lowering's names count for it alone: a later lowering names its own.
    expect(floorLines([{ tests: 7 }, { tests: 5, removed: two }, { tests: 7 }, { tests: 5 }])).toEqual([lowering]);
    expect(floorLines([{ tests: 4 }, { tests: 5, removed: two.slice(1) }])).toEqual([
      "test/floor.json's entry of 5 names removed tests, but it lowers nothing: a lowering names only its own",
    ]);
    // Where git has the last commit's file, its history stays: an entry changed or dropped is refused.
    const previous = path.join(dir, 'previous-floor.json');
    writeFileSync(previous, JSON.stringify(floorOf([{ tests: 7 }, { tests: 9 }])));
    const rewritten = "test/floor.json's history was rewritten: the last commit's entries must stay as they were, new ones after them";
    expect(floorLines([{ tests: 5 }], { TEST_TOTALS_PREVIOUS_FLOOR: previous })).toEqual([rewritten]);
    expect(
      floorLines([{ tests: 7 }, { tests: 8 }, { tests: 5, removed: [...two, { test: 'a.test.ts › four', why: 'moved' }] }], {
        TEST_TOTALS_PREVIOUS_FLOOR: previous,
      }),
    ).toEqual([rewritten]);
    expect(floorLines([{ tests: 7 }, { tests: 9 }, { tests: 5, removed: [...two, ...two] }], { TEST_TOTALS_PREVIOUS_FLOOR: previous })).toEqual([]);
    // A floor file with no history names what it needs.
    expect(floorLines([])).toEqual(['test/floor.json needs a "history" of entries { "tests": N }, the last one the count of tests']);
  });

  it('a test skipped for want of ../shared/data fails while ../shared/data is there', () => {
    const totals = path.join(dir, 'shared.json');
    runFixtures(totals, ['test/fixtures/totals/shared-data.check.ts', 'test/fixtures/totals/passes.check.ts']);
    const there = mkdtempSync(path.join(dir, 'shared-data-'));
    const floor = path.join(dir, 'floor-shared.json');
    writeFileSync(floor, JSON.stringify(floorOf(2)));
    const r = script([totals], { TEST_TOTALS_PARTIAL: '1', TEST_TOTALS_SHARED_DATA: there, TEST_TOTALS_FLOOR: floor });
    expect(r.lines).toEqual([
      'skipped while ../shared/data is there: test/fixtures/totals/shared-data.check.ts › reads the shared data',
      '1 passed, 1 failed, 1 skipped',
    ]);
    expect(r.status).toBe(1);
    expect(script([totals], { TEST_TOTALS_PARTIAL: '1', TEST_TOTALS_SHARED_DATA: NO_SHARED_DATA, TEST_TOTALS_FLOOR: floor }).status).toBe(0);
  });

  it('under CI=true no variable loosens it: a partial run of the fixtures is a run with the whole suite missing', () => {
    const totals = path.join(dir, 'ci.json');
    expect(runFixtures(totals, ['test/fixtures/totals/passes.check.ts']).status).toBe(0);
    const r = script([totals], { TEST_TOTALS_PARTIAL: '1', TEST_TOTALS_DIR: 'test/fixtures/totals', TEST_TOTALS_FLOOR: path.join(dir, 'floor-1.json') }, true);
    expect(r.status).toBe(1);
    expect(r.lines).toContain('never ran: test/totals.test.ts');
    expect(r.lines.some((l) => l.startsWith('only 1 tests'))).toBe(true);
  });

  it("under CI=true a skip is allowed only with the floor file's exact words for an absent ../shared/data, not any that mention it", () => {
    const totals = path.join(dir, 'ci-skip.json');
    runFixtures(totals, ['test/fixtures/totals/shared-data.check.ts']);
    const r = script([totals], {}, true);
    expect(r.lines).toContain(`skipped under CI: test/fixtures/totals/shared-data.check.ts › reads the shared data — ${FIXTURE_SKIP}`);
    expect(r.status).toBe(1);
  });

  it('fails when the suite wrote no totals at all', () => {
    const line = closingLine(path.join(dir, 'absent.json'), 1);
    expect(line.last).toMatch(/^0 passed, 1 failed/);
    expect(line.status).toBe(1);
  });
});
