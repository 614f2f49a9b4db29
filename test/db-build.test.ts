import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildDatabase, databaseVersion, ensureDatabase } from '../src/data/db/build.js';
import { SCHEMA_VERSION } from '../src/data/db/schema-sql.js';
import { getJson, startTestServer, copyDatabase } from './helpers/server.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gateway-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function freshCopy(name: string): string {
  const file = path.join(dir, name);
  copyDatabase(inject('templatePath'), file);
  return file;
}

function zipCount(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    return (db.prepare('SELECT count(*) AS n FROM zips').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const leftovers = (file: string) => readdirSync(path.dirname(file)).filter((n) => n.startsWith(`${path.basename(file)}.tmp-`));

describe('database build', () => {
  it('builds a complete, versioned database', () => {
    const file = path.join(dir, 'new.sqlite');
    expect(ensureDatabase(file)).toBe(true);
    expect(databaseVersion(file)).toBe(SCHEMA_VERSION);
    expect(zipCount(file)).toBe(40_977);
    expect(ensureDatabase(file)).toBe(false);
    expect(leftovers(file)).toEqual([]);
  });

  it('rebuilds a database of another schema version', () => {
    const file = freshCopy('old.sqlite');
    const db = new Database(file);
    db.pragma('user_version = 0');
    db.prepare('DELETE FROM zips WHERE zip > ?').run('50000');
    db.close();
    expect(ensureDatabase(file)).toBe(true);
    expect(databaseVersion(file)).toBe(SCHEMA_VERSION);
    expect(zipCount(file)).toBe(zipCount(inject('templatePath')));
  });

  it('a build that fails midway leaves the previous database untouched and no temp file', () => {
    const file = freshCopy('failing.sqlite');
    const before = zipCount(file);
    expect(() =>
      buildDatabase(file, {
        onProgress: (_t, rows) => {
          if (rows >= 10_000) throw new Error('disk on fire');
        },
      }),
    ).toThrow('disk on fire');
    expect(zipCount(file)).toBe(before);
    expect(leftovers(file)).toEqual([]);
  });

  it('a build killed with SIGKILL midway leaves the previous database usable, and the next start cleans up', async () => {
    const file = freshCopy('killed.sqlite');
    const before = zipCount(file);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/crash-build.ts'), file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('midway') && resolve());
      child.once('exit', (code) => reject(new Error(`build exited early with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    expect(leftovers(file).length).toBeGreaterThan(0);
    expect(zipCount(file)).toBe(before);
    const app = await startTestServer({ dbPath: file });
    try {
      expect((await getJson(app, '/api/zip/90210')).body.city).toBe('Beverly Hills');
      expect(leftovers(file)).toEqual([]);
    } finally {
      await app.close();
    }
    expect(existsSync(file)).toBe(true);
    expect(zipCount(file)).toBe(before);
  });
});
