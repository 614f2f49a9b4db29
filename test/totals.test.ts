import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * CI's closing line (scripts/test-totals.mjs over test/reporters/totals.ts) against a fixture suite
 * that goes wrong in every way a run can: a setup hook that throws, a file that cannot load, an
 * unhandled rejection, a file that never runs, fewer tests than the floor.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'totals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runFixtures(totals: string, files: string[] = []) {
  return spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/totals/vitest.config.ts', ...files], {
    env: { ...process.env, TEST_TOTALS_FILE: totals },
    encoding: 'utf8',
  });
}

function closingLine(totals: string, floor: number) {
  const floorFile = path.join(dir, `floor-${floor}.json`);
  writeFileSync(floorFile, JSON.stringify({ tests: floor }));
  const r = spawnSync(process.execPath, ['scripts/test-totals.mjs', totals], {
    env: { ...process.env, TEST_TOTALS_PARTIAL: '', TEST_TOTALS_DIR: 'test/fixtures/totals', TEST_TOTALS_SUFFIX: '.check.ts', TEST_TOTALS_FLOOR: floorFile },
    encoding: 'utf8',
  });
  const lines = r.stdout.trim().split('\n');
  return { status: r.status, lines, last: lines.at(-1) };
}

describe('the closing line', () => {
  it('counts a throwing hook, a file that cannot load, an unhandled error, a file that never ran and a short run as failures', () => {
    const totals = path.join(dir, 'all.json');
    expect(runFixtures(totals).status).not.toBe(0);
    const line = closingLine(totals, 10);
    expect(line.last).toBe('2 passed, 5 failed, 2 skipped');
    expect(line.status).toBe(1);
    expect(line.lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^failed outside a test: test\/fixtures\/totals\/hook-throws\.check\.ts › a suite whose setup throws: Error: setup failed$/),
        expect.stringMatching(/^failed outside a test: test\/fixtures\/totals\/cannot-load\.check\.ts: Error: this file cannot load$/),
        expect.stringMatching(/^unhandled error: .*nobody handled this/),
        'never ran: test/fixtures/totals/never-runs.check.ts',
        'only 2 tests ran; test/floor.json expects at least 10',
        'skipped: test/fixtures/totals/hook-throws.check.ts › a suite whose setup throws > would pass — not run: its suite "a suite whose setup throws" failed outside a test',
      ]),
    );
  });

  it('is plain success when every expected file ran, passed and met the floor', () => {
    const totals = path.join(dir, 'one.json');
    expect(runFixtures(totals, ['test/fixtures/totals/passes.check.ts']).status).toBe(0);
    const r = spawnSync(process.execPath, ['scripts/test-totals.mjs', totals], {
      env: { ...process.env, TEST_TOTALS_PARTIAL: '1' },
      encoding: 'utf8',
    });
    expect(r.stdout.trim()).toBe('1 passed, 0 failed');
    expect(r.status).toBe(0);
  });

  it('counts each failed check of .ci/run (codegen, API compatibility, lint, format), even when every test passed', () => {
    const totals = path.join(dir, 'checks.json');
    expect(runFixtures(totals, ['test/fixtures/totals/passes.check.ts']).status).toBe(0);
    const checks = path.join(dir, 'checks.txt');
    writeFileSync(checks, 'npm run lint\nnpm run format: the code is not formatted\n');
    const r = spawnSync(process.execPath, ['scripts/test-totals.mjs', totals, checks], { env: { ...process.env, TEST_TOTALS_PARTIAL: '1' }, encoding: 'utf8' });
    expect(r.stdout.trim().split('\n')).toEqual([
      'failed check: npm run lint',
      'failed check: npm run format: the code is not formatted',
      '1 passed, 2 failed',
    ]);
    expect(r.status).toBe(1);
    // No check file, or an empty one: only the suite counts.
    writeFileSync(checks, '');
    expect(
      spawnSync(process.execPath, ['scripts/test-totals.mjs', totals, checks], {
        env: { ...process.env, TEST_TOTALS_PARTIAL: '1' },
        encoding: 'utf8',
      }).stdout.trim(),
    ).toBe('1 passed, 0 failed');
  });

  it('fails when the suite wrote no totals at all', () => {
    const line = closingLine(path.join(dir, 'absent.json'), 1);
    expect(line.last).toMatch(/^0 passed, 1 failed/);
    expect(line.status).toBe(1);
  });
});
