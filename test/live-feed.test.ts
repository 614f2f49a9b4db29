import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/data/db/open.js';
import { createRepositories } from '../src/data/repositories/index.js';
import { RequestLoaders, type LoaderServices } from '../src/data/loaders.js';
import { SnapshotStore } from '../src/data/snapshots/store.js';
import { DataVersion } from '../src/data/data-version.js';
import { ConditionsFeed, FAN_OUT_SLICE, ROUNDS_BEHIND, type ConditionsUpdate } from '../src/live/conditions-feed.js';
import { createLogger } from '../src/lib/logger.js';
import { privateDatabase } from './helpers/server.js';
import { runNow } from './helpers/clock.js';

/**
 * The live feed over a real database (the run's, with today's weather): what a subscriber that
 * does not read costs, and what one that does receives. Changes are the hour turning on the
 * feed's clock, told to it as a publish would (`changed()`), never waited for.
 */

let db: Db;
let feed: ConditionsFeed;
let t = runNow().getTime();
beforeAll(() => {
  db = openDatabase(privateDatabase('gateway-feed-'));
  const repos = createRepositories(db);
  const now = () => new Date(t);
  const dataVersion = new DataVersion(repos, now);
  const services: LoaderServices = {
    repos,
    snapshots: new SnapshotStore(),
    snapshotChunk: 25,
    dataVersion,
    weatherWindow: { ensureFor: () => Promise.resolve(now().toISOString().slice(0, 10)) },
  };
  feed = new ConditionsFeed({
    snapshots: (ids) => new RequestLoaders(services).snapshotByResort.loadMany(ids),
    version: () => dataVersion.current().version,
    // Never by itself in these tests: every change is told.
    checkEveryMs: 3_600_000,
    logger: createLogger('silent'),
  });
});
afterAll(() => {
  feed.close();
  db.close();
});

/** The hour turns, and the feed is told. */
async function nextHour(): Promise<void> {
  t += 3_600_000;
  await feed.changed();
}

describe('the live conditions feed', () => {
  it('cuts a subscriber that stops reading once it is two rounds behind, and lets go of it; a reader beside it gets every update', async () => {
    const ids = ['vail', 'zermatt', 'niseko'];
    const slow = feed.subscribe(ids, 'METRIC');
    const reader = feed.subscribe(ids, 'METRIC');
    const got: ConditionsUpdate[] = [];
    // Each takes its first report (joining), then the slow one reads no more.
    got.push((await reader.next()).value!);
    expect((await slow.next()).value).toMatchObject({ reason: 'INITIAL' });
    for (let i = 1; i < ids.length; i++) got.push((await reader.next()).value!);
    expect(feed.stats).toMatchObject({ topics: 3, subscribers: 2 });

    // Its first reports but one wait, then two whole rounds: still there.
    for (let round = 0; round < ROUNDS_BEHIND; round++) {
      await nextHour();
      for (const _ of ids) got.push((await reader.next()).value!);
    }
    expect(feed.stats.subscribers).toBe(2);
    // One more round is one too many: it is cut, and nothing of it is kept.
    await nextHour();
    expect(feed.stats).toMatchObject({ topics: 3, subscribers: 1 });
    await expect(slow.next()).rejects.toMatchObject({ extensions: { code: 'TOO_SLOW' } });

    for (const _ of ids) got.push((await reader.next()).value!);
    expect(got.map((u) => u.reason)).toEqual([...ids.map(() => 'INITIAL'), ...Array(ids.length * (ROUNDS_BEHIND + 1)).fill('HOUR')]);
    await reader.return!();
    expect(feed.stats).toMatchObject({ topics: 0, subscribers: 0 });
  });

  it('a subscriber that leaves before its next update lets go at once (no update needs to come)', async () => {
    const sub = feed.subscribe(['vail'], 'IMPERIAL');
    expect((await sub.next()).value).toMatchObject({ resortId: 'vail', reason: 'INITIAL' });
    const waiting = sub.next();
    expect(feed.stats.subscribers).toBe(1);
    await sub.return!();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(feed.stats).toMatchObject({ topics: 0, subscribers: 0 });
  });

  it('an abort signal ends the subscription too', async () => {
    const abort = new AbortController();
    const sub = feed.subscribe(['vail'], 'METRIC', abort.signal);
    await sub.next();
    const waiting = sub.next();
    abort.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(feed.stats.subscribers).toBe(0);
  });

  it('a change tells its subscribers a slice at a time, giving the event loop a turn between slices', async () => {
    const count = 2 * FAN_OUT_SLICE + 50;
    const subs = Array.from({ length: count }, () => feed.subscribe(['niseko'], 'METRIC'));
    for (const s of subs) await s.next();
    let told = 0;
    const waiting = subs.map((s) => s.next().then(() => void told++));
    // A probe that runs once a turn (as a request's I/O would): what it sees between turns.
    const seen: number[] = [];
    let probing = true;
    const probe = () => {
      seen.push(told);
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    await nextHour();
    await Promise.all(waiting);
    probing = false;
    const steps = seen.map((n, i) => n - (seen[i - 1] ?? 0)).filter((d) => d > 0);
    expect(steps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(count);
    expect(Math.max(...steps)).toBeLessThanOrEqual(FAN_OUT_SLICE);
    expect(steps.length).toBeGreaterThanOrEqual(Math.ceil(count / FAN_OUT_SLICE) - 1);
    for (const s of subs) await s.return!();
  });

  it('subscribers whose updates cost much (large selections, each its own) take them a few a turn: a turn stops at its budget', async () => {
    const ids = ['vail', 'zermatt', 'niseko'];
    const subs = Array.from({ length: 30 }, () => feed.subscribe(ids, 'METRIC'));
    for (const s of subs) for (const _ of ids) await s.next();
    // Each update costs its reader a millisecond, as executing a large selection would.
    const busy = () => {
      const until = performance.now() + 1;
      while (performance.now() < until);
    };
    let taken = 0;
    const reading = subs.map(async (s) => {
      for (const _ of ids) {
        await s.next();
        busy();
        taken++;
      }
    });
    const perTurn: number[] = [];
    let last = 0;
    let probing = true;
    const probe = () => {
      perTurn.push(taken - last);
      last = taken;
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    await nextHour();
    await Promise.all(reading);
    probing = false;
    // 90 milliseconds of work: a few milliseconds' worth a turn (the budget, and the update that passed it).
    expect(taken).toBe(90);
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(6);
    for (const s of subs) await s.return!();
  });

  it('one report per resort and units per change, the same object for every subscriber', async () => {
    const subs = Array.from({ length: 5 }, () => feed.subscribe(['zermatt'], 'METRIC'));
    for (const s of subs) await s.next();
    await nextHour();
    const updates = await Promise.all(subs.map(async (s) => (await s.next()).value!));
    expect(new Set(updates.map((u) => u.conditions)).size).toBe(1);
    for (const s of subs) await s.return!();
  });
});
