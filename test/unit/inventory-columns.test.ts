import { describe, expect, it } from 'vitest';
import { LiftColumns, TrailColumns } from '../../src/data/snapshots/inventory-columns.js';
import type { ServedLift, ServedTrail } from '../../src/data/snapshots/snapshot.js';

/** Trails and lifts held as columns give back exactly what they were made from, in order. */
describe('snapshot inventory columns', () => {
  const trail = (id: string, over: Partial<ServedTrail> = {}): ServedTrail => ({
    id,
    resortId: 'vail',
    name: `Run ${id}`,
    difficulty: 'ADVANCED',
    rating: 'black-diamond',
    lengthM: 1234,
    source: 'generated',
    status: 'OPEN',
    grooming: 'UNGROOMED',
    ...over,
  });
  const lift = (id: string, over: Partial<ServedLift> = {}): ServedLift => ({
    id,
    resortId: 'vail',
    name: `Lift ${id}`,
    type: 'CHAIRLIFT',
    seats: 4,
    capacityPerHour: 2400,
    source: 'generated',
    status: 'HOLD',
    ...over,
  });

  it('gives back generated trails, whose ids it does not hold, field for field', () => {
    const trails = [
      trail('vail:t1'),
      trail('vail:t2', { difficulty: 'BEGINNER', rating: 'green-circle', lengthM: 640.5, status: 'CLOSED', grooming: 'GROOMED' }),
      trail('vail:t3', { difficulty: 'EXPERT', name: 'Prima Cornice' }),
    ];
    const columns = TrailColumns.of('vail', trails);
    expect(columns.length).toBe(3);
    expect(columns.all()).toEqual(trails);
    // Each call makes its own objects: a request may add to them (units) without touching the snapshot's.
    expect(columns.all()[0]).not.toBe(columns.all()[0]);
  });

  it('keeps ids that are not the resort, a prefix and the position: imported runs, gaps, another resort', () => {
    const trails = [trail('vail:osm:123', { source: 'openskimap' }), trail('vail:t2'), trail('vail:t9'), trail('beaver-creek:t4')];
    expect(
      TrailColumns.of('vail', trails)
        .all()
        .map((t) => t.id),
    ).toEqual(['vail:osm:123', 'vail:t2', 'vail:t9', 'beaver-creek:t4']);
  });

  it('gives back lifts, unknown seats and capacity and live feeds included', () => {
    const lifts = [
      lift('vail:l1'),
      lift('vail:l2', { type: 'GONDOLA', seats: 10, capacityPerHour: 4000, status: 'OPEN' }),
      lift('vail:live3', { type: 'UNKNOWN', seats: null, capacityPerHour: null, source: 'liftie', status: 'SCHEDULED' }),
    ];
    expect(LiftColumns.of('vail', lifts).all()).toEqual(lifts);
  });

  it('holds an empty inventory', () => {
    expect(TrailColumns.of('vail', []).all()).toEqual([]);
    expect(LiftColumns.of('vail', []).length).toBe(0);
  });

  it('refuses a value outside its list rather than storing a wrong one', () => {
    expect(() => TrailColumns.of('vail', [trail('vail:t1', { status: 'MAYBE' as never })])).toThrow(/not one of OPEN, CLOSED/);
  });
});
