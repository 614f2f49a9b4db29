import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestLoaders } from '../../src/data/loaders.js';
import type { ResortSnapshot } from '../../src/data/snapshots/snapshot.js';
import { conditionsView } from '../../src/data/snapshots/views.js';
import type { Units } from '../../src/domain/units.js';
import { ConditionsFeed, FAN_OUT_SLICE, ROUNDS_BEHIND, TooSlowError, type ConditionsUpdate } from '../../src/live/conditions-feed.js';
import { bounded, makeServices, recordingLogger } from './pipeline-world.js';

/**
 * The live conditions feed (live/conditions-feed.ts) over the resorts' real snapshots, built from a
 * private copy of the run's database on a clock of the test's own. The data version and what
 * changes in a snapshot are the test's (the feed's injected deps), so each kind of change is made
 * on purpose: new data fetched (SYNC), a new hour (HOUR), lifts opening (LIFTS).
 */

const PENDING = 'pending' as const;
/** What a promise holds once the work queued so far has run (a turn of the event loop), or PENDING. */
const peek = <T>(p: Promise<T>): Promise<T | typeof PENDING> => Promise.race([p, new Promise<typeof PENDING>((r) => setImmediate(() => r(PENDING)))]);

type Edit = (s: ResortSnapshot) => ResortSnapshot | Error;
/** A snapshot changed as the data would change it (its derived views made again). */
const changedSnapshot = (s: ResortSnapshot, change: Partial<ResortSnapshot>): ResortSnapshot => ({ ...s, ...change, memo: new Map() });

const worlds: { close: () => void }[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const w of worlds.splice(0)) w.close();
});

function feedWorld(options: { checkEveryMs?: number } = {}) {
  const base = makeServices('gateway-feed-');
  const { logger, lines } = recordingLogger();
  const state = {
    version: 'v1',
    edits: new Map<string, Edit>(),
    asked: [] as string[][],
    fail: null as Error | null,
    gate: undefined as Promise<void> | undefined,
  };
  const real = new Map<string, ResortSnapshot>();
  const feed = new ConditionsFeed({
    snapshots: async (ids) => {
      state.asked.push([...ids]);
      if (state.fail) throw state.fail;
      await state.gate;
      const loaded = await new RequestLoaders(base.services).snapshotByResort.loadMany(ids);
      return loaded.map((s, i) => {
        if (s instanceof Error) return s;
        real.set(ids[i]!, s);
        const edit = state.edits.get(ids[i]!);
        return edit ? edit(s) : s;
      });
    },
    version: () => state.version,
    checkEveryMs: options.checkEveryMs ?? 60_000,
    logger,
  });
  const w = {
    base,
    feed,
    state,
    lines,
    /** The report a resort's snapshot gives now, as the feed should send it. */
    view: async (id: string, units: Units = 'METRIC') => {
      const s = await new RequestLoaders(base.services).snapshotByResort.load(id);
      const edit = state.edits.get(id);
      const edited = edit ? edit(s) : s;
      if (edited instanceof Error) throw edited;
      return { conditions: conditionsView(edited, units), syncedAt: edited.syncedAt };
    },
    /** Moves the data on: a new version, and each resort's snapshot as `edit` makes it. */
    change: (edits: Record<string, Edit> = {}) => {
      state.version = `${state.version}+`;
      for (const [id, edit] of Object.entries(edits)) state.edits.set(id, edit);
      return bounded(feed.changed());
    },
    close: () => {
      feed.close();
      base.close();
    },
  };
  worlds.push(w);
  return w;
}

const drain = async (it: AsyncIterator<ConditionsUpdate>, n: number) => {
  const out: ConditionsUpdate[] = [];
  for (let i = 0; i < n; i++) {
    const r = await bounded(it.next());
    if (r.done) throw new Error(`ended after ${i}`);
    out.push(r.value);
  }
  return out;
};

describe('the live conditions feed', () => {
  it("a subscriber first gets each resort's report now (INITIAL), in the order asked, a copy counted once", async () => {
    const w = feedWorld();
    const it = w.feed.subscribe(['vail', 'zermatt', 'vail'], 'METRIC');
    const first = await drain(it, 2);
    const vail = await w.view('vail');
    const zermatt = await w.view('zermatt');
    expect(first).toEqual([
      { resortId: 'vail', conditions: vail.conditions, reason: 'INITIAL', syncedAt: vail.syncedAt },
      { resortId: 'zermatt', conditions: zermatt.conditions, reason: 'INITIAL', syncedAt: zermatt.syncedAt },
    ]);
    expect(vail.conditions.units).toMatchObject({ depth: 'cm' });
    // Nothing more until something changes.
    expect(await peek(it.next())).toBe(PENDING);
    expect(w.feed.stats).toEqual({ topics: 2, subscribers: 1, updates: 2, fanOutCpuSeconds: 0 });
  });

  it('reports in the units asked for, each units a topic of its own', async () => {
    const w = feedWorld();
    const metric = w.feed.subscribe(['vail'], 'METRIC');
    const imperial = w.feed.subscribe(['vail'], 'IMPERIAL');
    const [m] = await drain(metric, 1);
    const [i] = await drain(imperial, 1);
    expect(i!.conditions).toEqual((await w.view('vail', 'IMPERIAL')).conditions);
    expect(i!.conditions.units).toMatchObject({ depth: 'in' });
    expect(m!.conditions.units).toMatchObject({ depth: 'cm' });
    expect(w.feed.stats.topics).toBe(2);
  });

  it('a version that did not move tells no one; a report that did not change is not sent again', async () => {
    const w = feedWorld();
    const it = w.feed.subscribe(['vail'], 'METRIC');
    await drain(it, 1);
    const asked = w.state.asked.length;
    await bounded(w.feed.changed());
    // Same version: not even the snapshots are read.
    expect(w.state.asked.length).toBe(asked);
    const next = it.next();
    await w.change();
    expect(w.state.asked.length).toBe(asked + 1);
    expect(await peek(next)).toBe(PENDING);
  });

  it('new data fetched is SYNC, a new hour HOUR, lifts opening LIFTS, any other change of the report SYNC', async () => {
    const w = feedWorld();
    const it = w.feed.subscribe(['vail'], 'METRIC');
    const [initial] = await drain(it, 1);
    const c = initial!.conditions;
    const cases: [Edit, ConditionsUpdate['reason']][] = [
      [(s) => changedSnapshot(s, { syncedAt: '2027-01-15T11:30:00.000Z' }), 'SYNC'],
      [(s) => changedSnapshot(s, { syncedAt: '2027-01-15T11:30:00.000Z', updatedAt: `${c.updatedAt}+1h` }), 'HOUR'],
      [
        (s) =>
          changedSnapshot(s, {
            syncedAt: '2027-01-15T11:30:00.000Z',
            updatedAt: `${c.updatedAt}+1h`,
            report: { ...s.report, openLifts: s.report.openLifts - 1 },
          }),
        'LIFTS',
      ],
      [
        (s) =>
          changedSnapshot(s, {
            syncedAt: '2027-01-15T11:30:00.000Z',
            updatedAt: `${c.updatedAt}+1h`,
            report: { ...s.report, openLifts: s.report.openLifts - 1, totalLifts: s.report.totalLifts + 1 },
          }),
        'LIFTS',
      ],
      [
        (s) =>
          changedSnapshot(s, {
            syncedAt: '2027-01-15T11:30:00.000Z',
            updatedAt: `${c.updatedAt}+1h`,
            report: { ...s.report, openLifts: s.report.openLifts - 1, totalLifts: s.report.totalLifts + 1, snowDepthBaseCm: s.report.snowDepthBaseCm + 10 },
          }),
        'SYNC',
      ],
      // New data in a new hour: new data is the more telling.
      [(s) => changedSnapshot(s, { syncedAt: '2027-01-15T12:30:00.000Z', updatedAt: `${c.updatedAt}+2h` }), 'SYNC'],
    ];
    for (const [edit, reason] of cases) {
      await w.change({ vail: edit });
      const now = await w.view('vail');
      expect(await peek(it.next())).toEqual({ done: false, value: { resortId: 'vail', conditions: now.conditions, reason, syncedAt: now.syncedAt } });
    }
    expect(w.feed.stats.updates).toBe(1 + cases.length);
  });

  it('the hour turning on the server’s clock is an HOUR update (the feed as the server wires it)', async () => {
    const w = feedWorld();
    const { live, dataVersion } = w.base.services;
    const it = live.subscribe(['vail'], 'METRIC');
    const [initial] = await drain(it, 1);
    const next = it.next();
    await bounded(live.changed());
    expect(await peek(next)).toBe(PENDING);
    w.base.clock.at += 3_600_000;
    expect(dataVersion.current().version).not.toBe('');
    await bounded(live.changed());
    const update = (await peek(next)) as IteratorResult<ConditionsUpdate>;
    expect(update.value).toMatchObject({ resortId: 'vail', reason: 'HOUR', syncedAt: initial!.syncedAt });
    expect(update.value.conditions.updatedAt).not.toBe(initial!.conditions.updatedAt);
    expect(Date.parse(update.value.conditions.updatedAt) - Date.parse(initial!.conditions.updatedAt)).toBe(3_600_000);
    await it.return!();
  });

  it('subscribers of one resort share one update object; one of two changed resorts gets both at once, once', async () => {
    const w = feedWorld();
    const a = w.feed.subscribe(['vail', 'zermatt'], 'METRIC');
    const b = w.feed.subscribe(['vail'], 'METRIC');
    await drain(a, 2);
    await drain(b, 1);
    await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: 'x' }), zermatt: (s) => changedSnapshot(s, { syncedAt: 'y' }) });
    const [av, az] = await drain(a, 2);
    const [bv] = await drain(b, 1);
    expect([av!.resortId, av!.syncedAt, az!.resortId, az!.syncedAt]).toEqual(['vail', 'x', 'zermatt', 'y']);
    expect(bv).toBe(av);
    expect(await peek(a.next())).toBe(PENDING);
    expect(w.feed.stats.updates).toBe(3 + 3);
  });

  it('a subscriber who joins later gets the current report; later ones share its INITIAL object', async () => {
    const w = feedWorld();
    const first = w.feed.subscribe(['vail'], 'METRIC');
    await drain(first, 1);
    await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: 'later' }) });
    const [update] = await drain(first, 1);
    const second = w.feed.subscribe(['vail'], 'METRIC');
    const third = w.feed.subscribe(['vail'], 'METRIC');
    const [s2] = await drain(second, 1);
    const [s3] = await drain(third, 1);
    expect(s2).toEqual({ ...update, reason: 'INITIAL' });
    expect(s3).toBe(s2);
    // The snapshots of a topic listened to already are not read again for a newcomer.
    expect(w.state.asked).toEqual([['vail'], ['vail']]);
  });

  it(`a subscriber more than ${ROUNDS_BEHIND} rounds behind (besides its first) is cut: TOO_SLOW, and out of its topics`, async () => {
    const w = feedWorld();
    const slow = w.feed.subscribe(['vail'], 'METRIC');
    const reader = w.feed.subscribe(['vail'], 'METRIC');
    await drain(slow, 1);
    await drain(reader, 1);
    // Its first was read: the queue holds at most 1 × (1 + 2) updates.
    const read: string[] = [];
    const round = async (i: number) => {
      await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: `round ${i}` }) });
      read.push(...(await drain(reader, 1)).map((u) => u.syncedAt));
    };
    for (let i = 1; i <= 3; i++) await round(i);
    expect((await drain(slow, 3)).map((u) => u.syncedAt)).toEqual(['round 1', 'round 2', 'round 3']);
    for (let i = 4; i <= 6; i++) await round(i);
    expect(w.feed.stats.subscribers).toBe(2);
    await round(7);
    // Out of its topics as it is cut, before it reads again.
    expect(w.feed.stats.subscribers).toBe(1);
    const cut = slow.next();
    const error = await cut.then(
      () => null,
      (e: unknown) => e as TooSlowError,
    );
    expect(error).toBeInstanceOf(TooSlowError);
    expect(error!.message).toBe('Live updates stopped: the client read more slowly than they came (at most 3 may wait). Subscribe again.');
    expect(error!.extensions).toEqual({ code: 'TOO_SLOW', status: 429 });
    expect(w.feed.stats.subscribers).toBe(1);
    expect(read).toEqual(['round 1', 'round 2', 'round 3', 'round 4', 'round 5', 'round 6', 'round 7']);
    // Asked again, it says the same (a stream's reader stops at the first error).
    await expect(slow.next()).rejects.toBeInstanceOf(TooSlowError);
  });

  it('a subscriber of two resorts may have 2 × 3 waiting', async () => {
    const w = feedWorld();
    const it = w.feed.subscribe(['vail', 'zermatt'], 'METRIC');
    await drain(it, 2);
    for (let i = 1; i <= 3; i++)
      await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: `v${i}` }), zermatt: (s) => changedSnapshot(s, { syncedAt: `z${i}` }) });
    expect((await drain(it, 6)).map((u) => u.syncedAt)).toEqual(['v1', 'z1', 'v2', 'z2', 'v3', 'z3']);
    for (let i = 4; i <= 7; i++) await w.change({ zermatt: (s) => changedSnapshot(s, { syncedAt: `z${i}` }) });
    expect((await drain(it, 4)).map((u) => u.syncedAt)).toEqual(['z4', 'z5', 'z6', 'z7']);
  });

  it('return() lets go at once: a waiting next() ends, the topic goes when its last subscriber does', async () => {
    const w = feedWorld();
    const a = w.feed.subscribe(['vail'], 'METRIC');
    const b = w.feed.subscribe(['vail', 'zermatt'], 'METRIC');
    await drain(a, 1);
    await drain(b, 2);
    expect(w.feed.stats).toMatchObject({ topics: 2, subscribers: 2 });
    const waiting = a.next();
    expect(await a.return!()).toEqual({ done: true, value: undefined });
    expect(await bounded(waiting)).toEqual({ done: true, value: undefined });
    expect(await bounded(a.next())).toEqual({ done: true, value: undefined });
    expect(w.feed.stats).toMatchObject({ topics: 2, subscribers: 1 });
    await b.return!();
    await b.return!();
    expect(w.feed.stats).toMatchObject({ topics: 0, subscribers: 0 });
  });

  it('an aborted signal ends the stream; one that leaves before it joined takes no topic', async () => {
    const w = feedWorld();
    const abort = new AbortController();
    const it = w.feed.subscribe(['vail'], 'METRIC', abort.signal);
    await drain(it, 1);
    const waiting = it.next();
    abort.abort();
    expect(await bounded(waiting)).toEqual({ done: true, value: undefined });
    expect(w.feed.stats).toMatchObject({ topics: 0, subscribers: 0 });

    const early = w.feed.subscribe(['zermatt'], 'METRIC');
    const joining = early.next();
    await early.return!();
    expect(await bounded(joining)).toEqual({ done: true, value: undefined });
    expect(w.feed.stats).toMatchObject({ topics: 0, subscribers: 0 });

    const gone = new AbortController();
    gone.abort();
    const late = w.feed.subscribe(['vail'], 'METRIC', gone.signal);
    expect(await bounded(late.next())).toMatchObject({ done: false, value: { reason: 'INITIAL' } });
    expect(await bounded(late.next())).toEqual({ done: true, value: undefined });
  });

  it('close() ends every subscription', async () => {
    const w = feedWorld();
    const it = w.feed.subscribe(['vail'], 'METRIC');
    await drain(it, 1);
    const waiting = it.next();
    w.feed.close();
    expect(await bounded(waiting)).toEqual({ done: true, value: undefined });
  });

  it('a resort whose snapshot cannot be made is logged and left out, and gets its first report when it can (INITIAL)', async () => {
    const w = feedWorld();
    w.state.edits.set('zermatt', () => new Error('no weather'));
    const it = w.feed.subscribe(['vail', 'zermatt'], 'METRIC');
    expect((await drain(it, 1)).map((u) => [u.resortId, u.reason])).toEqual([['vail', 'INITIAL']]);
    expect(w.lines).toEqual([expect.objectContaining({ level: 40, resort: 'zermatt', cause: 'no weather', msg: 'a live report could not be made' })]);
    const next = it.next();
    await w.change();
    expect(await peek(next)).toBe(PENDING);
    w.state.edits.delete('zermatt');
    await w.change();
    expect(((await peek(next)) as IteratorResult<ConditionsUpdate>).value).toMatchObject({ resortId: 'zermatt', reason: 'INITIAL' });
  });

  it('a change that fails is logged; the changes after it still run', async () => {
    const w = feedWorld();
    const it = w.feed.subscribe(['vail'], 'METRIC');
    await drain(it, 1);
    w.state.fail = new Error('database gone');
    await expect(w.change()).rejects.toThrow('database gone');
    expect(w.lines).toEqual([
      expect.objectContaining({ level: 50, msg: 'live conditions could not be updated', err: expect.objectContaining({ message: 'database gone' }) }),
    ]);
    w.state.fail = null;
    await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: 'after' }) });
    expect((await peek(it.next())) as IteratorResult<ConditionsUpdate>).toMatchObject({ value: { syncedAt: 'after', reason: 'SYNC' } });
  });

  it('reads snapshots a few resorts at a time, and reports every one of many', async () => {
    const w = feedWorld();
    const ids = w.base.repos.resorts
      .all()
      .slice(0, 20)
      .map((r) => r.id);
    const it = w.feed.subscribe(ids, 'METRIC');
    const first = await drain(it, ids.length);
    expect(first.map((u) => u.resortId)).toEqual(ids);
    expect(w.state.asked.map((batch) => batch.length)).toEqual([8, 8, 4]);
    expect(w.state.asked.flat()).toEqual(ids);
  });

  it(`tells every one of more than ${FAN_OUT_SLICE} subscribers, over as many turns as it takes`, async () => {
    const w = feedWorld();
    const subscribers = Array.from({ length: FAN_OUT_SLICE + 20 }, () => w.feed.subscribe(['vail'], 'METRIC'));
    for (const s of subscribers) await drain(s, 1);
    const next = subscribers.map((s) => s.next());
    await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: 'for all' }) });
    const told = await Promise.all(next.map((p) => peek(p)));
    expect(told.every((t) => t !== PENDING && !t.done && t.value.syncedAt === 'for all')).toBe(true);
    expect(new Set(told).size).toBe(told.length);
    expect(new Set(told.map((t) => (t as IteratorResult<ConditionsUpdate>).value)).size).toBe(1);
    expect(w.feed.stats.updates).toBe(2 * subscribers.length);
    expect(w.feed.stats.fanOutCpuSeconds).toBeGreaterThan(0);
  });

  it('while anyone listens, looks every checkEveryMs whether the version moved (the hour turns with no event); stops when no one does', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const w = feedWorld({ checkEveryMs: 1_000 });
    expect(vi.getTimerCount()).toBe(0);
    const it = w.feed.subscribe(['vail'], 'METRIC');
    await drain(it, 1);
    expect(vi.getTimerCount()).toBe(1);
    const next = it.next();
    w.state.version = 'moved';
    w.state.edits.set('vail', (s) => changedSnapshot(s, { syncedAt: 'checked' }));
    vi.advanceTimersByTime(999);
    expect(await peek(next)).toBe(PENDING);
    vi.advanceTimersByTime(1);
    // The check runs its work in turns of the event loop (real ones): wait for them.
    await vi.waitFor(async () => expect(await peek(next)).not.toBe(PENDING), { interval: 0 });
    expect(((await next) as IteratorResult<ConditionsUpdate>).value).toMatchObject({ syncedAt: 'checked', reason: 'SYNC' });
    // A second subscriber does not start a second timer.
    const other = w.feed.subscribe(['zermatt'], 'METRIC');
    await drain(other, 1);
    expect(vi.getTimerCount()).toBe(1);
    await it.return!();
    expect(vi.getTimerCount()).toBe(1);
    await other.return!();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('no timer after close(), even for a subscriber that joins then', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const w = feedWorld({ checkEveryMs: 1_000 });
    w.feed.close();
    const it = w.feed.subscribe(['vail'], 'METRIC');
    expect(await bounded(it.next())).toMatchObject({ done: false, value: { reason: 'INITIAL' } });
    expect(vi.getTimerCount()).toBe(0);
    expect(await bounded(it.next())).toEqual({ done: true, value: undefined });
  });
});

describe('the live conditions feed, more', () => {
  it('is an async iterable: for await reads it', async () => {
    const w = feedWorld();
    const seen: string[] = [];
    for await (const update of w.feed.subscribe(['vail'], 'METRIC')) {
      seen.push(`${update.resortId} ${update.reason}`);
      break;
    }
    expect(seen).toEqual(['vail INITIAL']);
    expect(w.feed.stats.subscribers).toBe(0);
  });

  it('counts the CPU its changes took, in seconds: no more than the process has spent', async () => {
    const w = feedWorld();
    const it = w.feed.subscribe(['vail'], 'METRIC');
    await drain(it, 1);
    await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: 'x' }) });
    const cpu = process.cpuUsage();
    const { fanOutCpuSeconds } = w.feed.stats;
    expect(fanOutCpuSeconds).toBeGreaterThan(0);
    expect(fanOutCpuSeconds).toBeLessThanOrEqual((cpu.user + cpu.system) / 1e6);
  });

  it('reads 16 resorts in two batches of 8', async () => {
    const w = feedWorld();
    const ids = w.base.repos.resorts
      .all()
      .slice(0, 16)
      .map((r) => r.id);
    await drain(w.feed.subscribe(ids, 'METRIC'), 16);
    expect(w.state.asked).toEqual([ids.slice(0, 8), ids.slice(8)]);
  });

  it('a subscriber cut in a round gets nothing more of that round (its other resorts)', async () => {
    const w = feedWorld();
    const it = w.feed.subscribe(['vail', 'zermatt'], 'METRIC');
    await drain(it, 2);
    for (let i = 1; i <= 4; i++)
      await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: `v${i}` }), zermatt: (s) => changedSnapshot(s, { syncedAt: `z${i}` }) });
    await expect(it.next()).rejects.toBeInstanceOf(TooSlowError);
  });

  it('requests get a turn of the event loop before the last of many subscribers is told', async () => {
    const w = feedWorld();
    const subscribers = Array.from({ length: FAN_OUT_SLICE + 20 }, () => w.feed.subscribe(['vail'], 'METRIC'));
    for (const s of subscribers) await drain(s, 1);
    let told = 0;
    let toldWhenATurnCame = -1;
    const next = subscribers.map((s, i) =>
      s.next().then((r) => {
        told++;
        // Queued as the first is told: runs in the next turn of the event loop.
        if (i === 0) setImmediate(() => (toldWhenATurnCame = told));
        return r;
      }),
    );
    await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: 'for all' }) });
    await bounded(Promise.all(next));
    expect(told).toBe(subscribers.length);
    expect(toldWhenATurnCame).toBeGreaterThan(0);
    expect(toldWhenATurnCame).toBeLessThanOrEqual(FAN_OUT_SLICE);
  });

  it('a subscriber who leaves while its first reports are made starts no timer', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const w = feedWorld({ checkEveryMs: 1_000 });
    let open!: () => void;
    w.state.gate = new Promise<void>((resolve) => (open = resolve));
    const it = w.feed.subscribe(['vail'], 'METRIC');
    const first = it.next();
    await vi.waitFor(() => expect(w.state.asked).toHaveLength(1), { interval: 0 });
    await it.return!();
    w.state.gate = undefined;
    open();
    await bounded(first);
    expect(w.feed.stats).toMatchObject({ topics: 0, subscribers: 0 });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the live conditions feed, paced on a clock of the test’s own (performance.now faked)', () => {
  /**
   * Tells n subscribers of one resort of a change and records, as each one's update reaches it,
   * how many had been told by then (the feed's count of updates queued), and how many had been
   * told when a turn of the event loop came (a callback queued as the first is told).
   */
  async function fanOut(n: number, costMs: number) {
    const w = feedWorld();
    const subscribers = Array.from({ length: n }, () => w.feed.subscribe(['vail'], 'METRIC'));
    for (const s of subscribers) await drain(s, 1);
    const base = w.feed.stats.updates;
    const toldBy: number[] = [];
    let toldWhenATurnCame = -1;
    const next = subscribers.map((s, i) =>
      s.next().then((r) => {
        toldBy.push(w.feed.stats.updates - base);
        // A costly subscriber: its update takes this long to run and be written.
        if (costMs > 0) vi.advanceTimersByTime(costMs);
        if (i === 0) setImmediate(() => (toldWhenATurnCame = w.feed.stats.updates - base));
        return r;
      }),
    );
    await w.change({ vail: (s) => changedSnapshot(s, { syncedAt: 'paced' }) });
    await bounded(Promise.all(next));
    return { toldBy, toldWhenATurnCame };
  }

  it(`cheap subscribers are told in groups that double up to 8; a turn comes after ${FAN_OUT_SLICE} of them`, async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { toldBy, toldWhenATurnCame } = await fanOut(FAN_OUT_SLICE + 16, 0);
    // Groups of 1, 2, 4, then 8: each group's updates run before the next group is told.
    expect(toldBy.slice(0, 23)).toEqual([1, 3, 3, 7, 7, 7, 7, ...Array(8).fill(15), ...Array(8).fill(23)]);
    // The 200th closes its group early (a turn is due), and the turn comes then.
    expect(toldBy[FAN_OUT_SLICE - 1]).toBe(FAN_OUT_SLICE);
    expect(toldWhenATurnCame).toBe(FAN_OUT_SLICE);
    expect(toldBy.at(-1)).toBe(FAN_OUT_SLICE + 16);
  });

  it('costly subscribers are told one at a time, and a turn comes once the turn’s budget is spent', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    // 1 ms each: over the 0.2 ms of a cheap one. The feed resumes (a tick) before the last
    // subscriber's update has run, so the 4 ms budget is found spent after the sixth.
    const { toldBy, toldWhenATurnCame } = await fanOut(12, 1);
    expect(toldBy).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(toldWhenATurnCame).toBe(6);
  });
});
