import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataVersion } from '../../src/data/data-version.js';
import { openDatabase } from '../../src/data/db/open.js';
import { createRepositories } from '../../src/data/repositories/index.js';
import { privateDatabase } from '../helpers/server.js';
import { beforeAllOrFailEach } from './fixture-hooks.js';

describe('the version of the data an answer depends on', () => {
  let file: string;
  let db: ReturnType<typeof openDatabase>;
  let repos: ReturnType<typeof createRepositories>;
  beforeAllOrFailEach(() => {
    file = privateDatabase('data-version-');
    db = openDatabase(file);
    repos = createRepositories(db);
  });
  afterAll(() => {
    db?.close();
    rmSync(path.dirname(file), { recursive: true, force: true });
  });

  /** A DataVersion on a clock of the test's own, and the next sync run it is told of. */
  const at = (iso: string, nextSync: string | null = null) => {
    const clock = { now: new Date(iso), nextSync: nextSync ? new Date(nextSync) : null };
    return {
      clock,
      version: new DataVersion(
        repos,
        () => clock.now,
        () => clock.nextSync,
      ),
    };
  };

  it('resort data: the hour, the stored weather and the inventory; the same all hour, new with the next', () => {
    const { clock, version } = at('2027-01-15T10:15:30Z');
    const { asOf, version: v } = version.current();
    expect(asOf.toISOString()).toBe('2027-01-15T10:00:00.000Z');
    expect(v).toBe(`${Date.parse('2027-01-15T10:00:00Z')}|${repos.weather.version}|${repos.inventory.version}`);
    expect(version.of('data')).toBe(v);
    clock.now = new Date('2027-01-15T10:59:59.999Z');
    expect(version.of('data')).toBe(v);
    clock.now = new Date('2027-01-15T11:00:00Z');
    expect(version.of('data')).toBe(`${Date.parse('2027-01-15T11:00:00Z')}|${repos.weather.version}|${repos.inventory.version}`);
  });

  it('a publish (a sync run, or a window applied) changes the weather and the inventory versions', () => {
    const { version } = at('2027-01-15T10:15:30Z');
    const before = version.of('data');
    const [weather, inventory] = [repos.weather.version, repos.inventory.version];
    version.published();
    expect([repos.weather.version, repos.inventory.version]).toEqual([weather + 1, inventory + 1]);
    expect(version.of('data')).not.toBe(before);
  });

  it('ZIP data: one version for the process’s life, whatever the hour or a publish; another process’s differs', () => {
    const { clock, version } = at('2027-01-15T10:15:30Z');
    const zip = version.of('static');
    expect(zip).toMatch(/^[0-9a-f-]{36}$/);
    clock.now = new Date('2027-03-01T00:00:00Z');
    version.published();
    expect(version.of('static')).toBe(zip);
    expect(at('2027-01-15T10:15:30Z').version.of('static')).not.toBe(zip);
  });

  it('a client keeps ZIP answers a day, then serves them stale a day while it asks again', () => {
    expect(at('2027-01-15T10:15:30Z').version.cacheControl('static')).toBe('private, max-age=86400, stale-while-revalidate=86400');
  });

  it('a client keeps resort answers until the next hour or the next sync run, whichever is first, then a minute stale', () => {
    expect(at('2027-01-15T10:15:30Z').version.cacheControl('data')).toBe('private, max-age=2670, stale-while-revalidate=60');
    expect(at('2027-01-15T10:15:30Z', '2027-01-15T10:30:00Z').version.cacheControl('data')).toBe('private, max-age=870, stale-while-revalidate=60');
    // A sync run due later than the hour, or already past, does not shorten it.
    expect(at('2027-01-15T10:15:30Z', '2027-01-15T12:00:00Z').version.cacheControl('data')).toBe('private, max-age=2670, stale-while-revalidate=60');
    expect(at('2027-01-15T10:15:30Z', '2027-01-15T10:15:30Z').version.cacheControl('data')).toBe('private, max-age=2670, stale-while-revalidate=60');
    expect(at('2027-01-15T10:15:30Z', '2027-01-15T09:00:00Z').version.cacheControl('data')).toBe('private, max-age=2670, stale-while-revalidate=60');
    // Whole seconds, rounded down.
    expect(at('2027-01-15T10:59:59.500Z').version.cacheControl('data')).toBe('private, max-age=0, stale-while-revalidate=60');
  });

  it('is worked out once a second: within the second the same header, the next second a new one', () => {
    const { clock, version } = at('2027-01-15T10:15:30.100Z');
    const first = version.cacheControl('data');
    clock.now = new Date('2027-01-15T10:15:30.900Z');
    clock.nextSync = new Date('2027-01-15T10:20:00Z');
    expect(version.cacheControl('data')).toBe(first);
    clock.now = new Date('2027-01-15T10:15:31.000Z');
    expect(version.cacheControl('data')).toBe('private, max-age=269, stale-while-revalidate=60');
    // Each freshness keeps its own.
    expect(version.cacheControl('static')).toBe('private, max-age=86400, stale-while-revalidate=86400');
    expect(version.cacheControl('data')).toBe('private, max-age=269, stale-while-revalidate=60');
  });
});
