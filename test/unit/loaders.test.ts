import { describe, expect, it } from 'vitest';
import { RequestLoaders, type LoaderServices } from '../../src/data/loaders.js';
import { SnapshotStore } from '../../src/data/snapshots/store.js';
import { addDays } from '../../src/domain/dates.js';
import { withTracing } from './tracing.js';
import { makeServices, sharedServices } from './pipeline-world.js';

/**
 * The per-request loaders (data/loaders.ts) over a copy of the run's database on the run's clock
 * (today 2027-01-15 UTC): what each batch reads, in the order of its keys, and snapshots built
 * from one generation of the data.
 */
const TODAY = '2027-01-15';
const base = sharedServices('loaders-');
const loaders = (over: Partial<LoaderServices> = {}) => {
  const { repos, snapshots, snapshotChunk, dataVersion, weatherWindow } = base().services;
  return new RequestLoaders({ repos, snapshots, snapshotChunk, dataVersion, weatherWindow, ...over });
};
const zipOf = (r: { zip: string } | null) => r?.zip ?? null;

describe('the request loaders', () => {
  it('ZIPs by code, in the order asked, null where there is none (one or many)', async () => {
    const l = loaders();
    expect((await l.zipByCode.loadMany(['90210', '00000', '00501'])).map((r) => zipOf(r as never))).toEqual(['90210', null, '00501']);
    expect(zipOf(await loaders().zipByCode.load('99950'))).toBe('99950');
    expect(await loaders().zipByCode.load('00000')).toBeNull();
  });

  it('what is in memory is read without a batch: a ZIP once the table is, a state, a state’s page', () => {
    const l = loaders();
    expect(l.state('CO')).toMatchObject({ stateName: 'Colorado', fips: '08' });
    expect(l.state('XX')).toBeNull();
    base().repos.zips.warm();
    expect(l.zipInMemory('90210')).toMatchObject({ city: 'Beverly Hills' });
    expect(l.zipInMemory('00000')).toBeNull();
    expect(l.statePageInMemory({ stateCode: 'AK', limit: 2, offset: 1 })!.map(zipOf)).toEqual(['99502', '99503']);
  });

  it('pages of states: one batch for every window asked for, each page its state’s, empty for a state with none', async () => {
    const l = loaders();
    const pages = await l.zipsByState.loadMany([
      { stateCode: 'CO', limit: 2, offset: 0 },
      { stateCode: 'AK', limit: 2, offset: 0 },
      { stateCode: 'CO', limit: 1, offset: 2 },
      { stateCode: 'XX', limit: 2, offset: 0 },
      { stateCode: 'AK', limit: 1, offset: 1 },
    ]);
    expect(pages.map((p) => (p as { zip: string }[]).map(zipOf))).toEqual([['80001', '80002'], ['99501', '99502'], ['80003'], [], ['99502']]);
    // The same page asked twice is one key.
    const again = loaders();
    const [a, b] = await Promise.all([
      again.zipsByState.load({ stateCode: 'AK', limit: 1, offset: 0 }),
      again.zipsByState.load({ stateCode: 'AK', limit: 1, offset: 0 }),
    ]);
    expect(a).toBe(b);
    // And asked again later, with a key of its own making: the page the request has already.
    expect(await again.zipsByState.load({ stateCode: 'AK', limit: 1, offset: 0 })).toBe(a);
  });

  it('resorts by id, their trails, lifts and live lifts, grouped by resort in the order asked', async () => {
    const l = loaders();
    const { inventory } = base().repos;
    const [vail, none, alta] = await l.resortById.loadMany(['vail', 'no-such-resort', 'alta']);
    expect([(vail as { name: string }).name, none, (alta as { name: string }).name]).toEqual(['Vail', null, 'Alta']);
    expect(await loaders().resortById.load('zermatt')).toMatchObject({ id: 'zermatt', name: 'Zermatt' });
    const trails = (await l.trailsByResort.loadMany(['vail', 'no-such-resort', 'alta'])) as { resortId: string }[][];
    expect(trails.map((t) => t.length)).toEqual([inventory.trailsOf(['vail']).length, 0, inventory.trailsOf(['alta']).length]);
    expect(trails[0]!.length).toBeGreaterThan(0);
    expect(trails[0]).toEqual(inventory.trailsOf(['vail']));
    expect(trails[2]).toEqual(inventory.trailsOf(['alta']));
    const lifts = (await l.liftsByResort.loadMany(['alta', 'vail'])) as unknown[][];
    expect(lifts).toEqual([inventory.liftsOf(['alta']), inventory.liftsOf(['vail'])]);
    expect(lifts[0]!.length).toBeGreaterThan(0);
  });

  it('live lifts, where a sync run stored some', async () => {
    const s = makeServices('loaders-live-');
    try {
      s.db.prepare("INSERT INTO live_lifts VALUES ('alta', 2, 'Sugarloaf', 'HOLD', 'liftie', 'x'), ('alta', 1, 'Collins', 'OPEN', 'liftie', 'x')").run();
      const l = new RequestLoaders({ ...s.services });
      expect(await l.liveLiftsByResort.loadMany(['vail', 'alta'])).toEqual([
        [],
        [
          { resortId: 'alta', ordinal: 1, name: 'Collins', status: 'OPEN', source: 'liftie' },
          { resortId: 'alta', ordinal: 2, name: 'Sugarloaf', status: 'HOLD', source: 'liftie' },
        ],
      ]);
    } finally {
      s.close();
    }
  });

  it('recent days: from 8 days before today to the end of the forecast, each resort’s own, after the window is made sure of', async () => {
    const asked: string[][] = [];
    const window = {
      ensureFor: async (ids: readonly string[]) => {
        asked.push([...ids]);
        return TODAY;
      },
    };
    const l = loaders({ weatherWindow: window });
    const [vail, none] = (await l.recentDaysByResort.loadMany(['vail', 'no-such-resort'])) as { resortId: string; date: string }[][];
    expect(asked).toEqual([['vail', 'no-such-resort']]);
    expect(none).toEqual([]);
    expect(vail!.map((d) => d.date)).toEqual(Array.from({ length: 16 }, (_, i) => addDays(TODAY, i - 8)));
    expect(new Set(vail!.map((d) => d.resortId))).toEqual(new Set(['vail']));
  });

  it('each resort’s last measurable snowfall before its recent days, over the stored window; null when none', async () => {
    const s = makeServices('loaders-snowfall-');
    try {
      // Vail: no snow in the stored window but a trace; Alta: two snowy days, the later one kept; both before today − 8.
      s.db.prepare("UPDATE daily_weather SET snowfall_summit_cm = 0 WHERE resort_id IN ('vail', 'alta')").run();
      const snow = s.db.prepare('UPDATE daily_weather SET snowfall_summit_cm = ? WHERE resort_id = ? AND date = ?');
      snow.run(0.2, 'vail', addDays(TODAY, -20));
      snow.run(3, 'alta', addDays(TODAY, -30));
      snow.run(0.25, 'alta', addDays(TODAY, -9));
      snow.run(9, 'alta', addDays(TODAY, -8));
      snow.run(9, 'vail', addDays(TODAY, -61));
      const l = new RequestLoaders({ ...s.services });
      expect(await l.earlierSnowfallByResort.loadMany(['vail', 'alta', 'no-such-resort'])).toEqual([null, { date: addDays(TODAY, -9), cm: 0.25 }, null]);
      snow.run(0.25, 'vail', addDays(TODAY, -60));
      expect(await new RequestLoaders({ ...s.services }).earlierSnowfallByResort.load('vail')).toEqual({ date: addDays(TODAY, -60), cm: 0.25 });
    } finally {
      s.close();
    }
  });

  it('snapshots: built once per generation and shared by later requests; a resort that is not there is an error', async () => {
    const snapshots = new SnapshotStore();
    const first = await loaders({ snapshots }).snapshotByResort.loadMany(['vail', 'no-such-resort', 'alta']);
    expect((first[0] as { resort: { id: string } }).resort.id).toBe('vail');
    expect((first[2] as { resort: { id: string } }).resort.id).toBe('alta');
    expect(first[1]).toEqual(new Error('resort no-such-resort not found'));
    const vail = first[0] as { today: string; asOf: Date; days: { date: string }[]; trails: { all(): unknown[] } };
    expect([vail.today, vail.asOf.toISOString(), vail.days.length]).toEqual(['2027-01-15', '2027-01-15T12:00:00.000Z', 16]);
    expect(vail.trails.all()).toHaveLength(base().repos.inventory.trailsOf(['vail']).length);
    const again = loaders({ snapshots });
    expect(await again.snapshotByResort.load('vail')).toBe(first[0]);
    // A store of another generation builds its own.
    expect(await loaders().snapshotByResort.load('vail')).not.toBe(first[0]);
  });

  it('snapshots of many resorts are built a chunk per turn, all of one generation', async () => {
    const ids = ['alta', 'vail', 'taos', 'zermatt', 'are'];
    const chunked = await loaders({ snapshotChunk: 2 }).snapshotByResort.loadMany(ids);
    const whole = await loaders().snapshotByResort.loadMany(ids);
    expect(chunked.map((s) => (s as { resort: { id: string } }).resort.id)).toEqual(ids);
    expect(chunked.map((s) => (s as { report: unknown }).report)).toEqual(whole.map((s) => (s as { report: unknown }).report));
  });

  it('other work goes on between chunks, not before the first', async () => {
    const order = async (snapshotChunk: number) => {
      const seen: string[] = [];
      setImmediate(() => seen.push('another request'));
      await loaders({ snapshots: new SnapshotStore(), snapshotChunk }).snapshotByResort.loadMany(['alta', 'vail', 'taos']);
      seen.push('loaded');
      await new Promise((resolve) => setImmediate(resolve));
      return seen;
    };
    expect(await order(3)).toEqual(['loaded', 'another request']);
    expect(await order(2)).toEqual(['another request', 'loaded']);
  });

  it('a batch that fails under the snapshots fails them with its error', async () => {
    let calls = 0;
    const failing = {
      ensureFor: async () => {
        if (++calls > 1) throw new Error('the provider is down');
        return TODAY;
      },
    };
    await expect(loaders({ snapshots: new SnapshotStore(), weatherWindow: failing }).snapshotByResort.load('vail')).rejects.toThrow('the provider is down');
  });

  it('a publish while a batch loads: it starts again on the new rows, at most three times, then builds from what it read', async () => {
    const s = makeServices('loaders-restart-');
    try {
      const { asOf } = s.services.dataVersion.current();
      let calls = 0;
      // The second look at the version (after the rows were read) finds a publish happened meanwhile.
      const publishing = {
        current: () => {
          if (++calls === 2) s.db.prepare("UPDATE daily_weather SET snow_depth_base_cm = 777 WHERE resort_id = 'vail'").run();
          return { asOf, version: calls === 1 ? 'before' : 'after' };
        },
      };
      const restarted = (await new RequestLoaders({ ...s.services, snapshots: new SnapshotStore(), dataVersion: publishing }).snapshotByResort.load(
        'vail',
      )) as {
        days: { snowDepthBaseCm: number }[];
      };
      expect(calls).toBe(4);
      expect(new Set(restarted.days.map((d) => d.snowDepthBaseCm))).toEqual(new Set([777]));
      // A version that never settles: three restarts, then the fourth build is kept.
      calls = 0;
      const restless = { current: () => ({ asOf, version: `v${++calls}` }) };
      const built = await new RequestLoaders({ ...s.services, snapshots: new SnapshotStore(), dataVersion: restless }).snapshotByResort.load('alta');
      expect((built as { resort: { id: string } }).resort.id).toBe('alta');
      expect(calls).toBe(7);
    } finally {
      s.close();
    }
  });

  it('with tracing on, each batch is a span named by its loader, with the number of keys', async () => {
    await withTracing('loaders', async ({ exporter, tracer }) => {
      await tracer.startActiveSpan('request', async (request) => {
        const l = loaders({ snapshots: new SnapshotStore() });
        await l.snapshotByResort.loadMany(['vail', 'alta']);
        // In chunks of two: each chunk's rows a batch of their own.
        await loaders({ snapshots: new SnapshotStore(), snapshotChunk: 2 }).snapshotByResort.loadMany(['taos', 'are', 'zermatt']);
        await l.zipByCode.load('90210');
        await l.zipsByState.load({ stateCode: 'AK', limit: 1, offset: 0 });
        request.end();
      });
      const spans = exporter.getFinishedSpans().filter((x) => x.name !== 'request');
      expect(spans.map((x) => [x.name, x.attributes]).sort()).toEqual(
        [
          ['load snapshotByResort', { 'db.system': 'sqlite', 'loader.keys': 2 }],
          ['load resortById', { 'db.system': 'sqlite', 'loader.keys': 2 }],
          ['load recentDaysByResort', { 'db.system': 'sqlite', 'loader.keys': 2 }],
          ['load earlierSnowfallByResort', { 'db.system': 'sqlite', 'loader.keys': 2 }],
          ['load trailsByResort', { 'db.system': 'sqlite', 'loader.keys': 2 }],
          ['load liftsByResort', { 'db.system': 'sqlite', 'loader.keys': 2 }],
          ['load liveLiftsByResort', { 'db.system': 'sqlite', 'loader.keys': 2 }],
          ['load snapshotByResort', { 'db.system': 'sqlite', 'loader.keys': 3 }],
          ...['resortById', 'recentDaysByResort', 'earlierSnowfallByResort', 'trailsByResort', 'liftsByResort', 'liveLiftsByResort'].flatMap((name) => [
            [`load ${name}`, { 'db.system': 'sqlite', 'loader.keys': 2 }],
            [`load ${name}`, { 'db.system': 'sqlite', 'loader.keys': 1 }],
          ]),
          ['load zipByCode', { 'db.system': 'sqlite', 'loader.keys': 1 }],
          ['load zipsByState', { 'db.system': 'sqlite', 'loader.keys': 1 }],
        ].sort(),
      );
    });
  });
});
