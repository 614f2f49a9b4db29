import { describe, expect, it } from 'vitest';
import { argsOf, dropNulls } from '../../src/validation/args.js';
import { problemOf } from '../../src/validation/validate.js';
import { NearbyParams, ZIP_BOUNDS } from '../../src/validation/params.js';

/** GraphQL arguments through the same parameter schemas as REST (Pothos' validation plugin calls this). */
describe('GraphQL arguments through the shared parameter schemas', () => {
  it('null and absent arguments are dropped (the schema then applies its default); 0, "" and false are kept', () => {
    expect(dropNulls({ a: null, b: undefined, c: 0, d: '', e: false, f: 'x' })).toStrictEqual({ c: 0, d: '', e: false, f: 'x' });
  });

  it('valid arguments come back parsed, with the defaults', () => {
    const v = argsOf(NearbyParams)['~standard'];
    expect(v.version).toBe(1);
    expect(v.vendor).toBe('ski-zip-gateway');
    expect(v.validate({ zip: '90210', radiusMiles: null, limit: '7' })).toEqual({
      value: { zip: '90210', radiusMiles: ZIP_BOUNDS.radiusMiles.default, limit: 7 },
    });
  });

  it('invalid ones are issues, each with the problem REST would name: the parameter, its value and its bound', () => {
    const r = argsOf(NearbyParams)['~standard'].validate({ zip: '90210', radiusMiles: 0, limit: 1000 });
    expect(r.issues).toEqual([
      { message: expect.any(String), path: ['radiusMiles'], problem: { name: 'radiusMiles', value: 0, bound: '> 0', message: 'radiusMiles must be > 0' } },
      {
        message: expect.any(String),
        path: ['limit'],
        problem: { name: 'limit', value: 1000, bound: `<= ${ZIP_BOUNDS.nearbyLimit.max}`, message: `limit must be <= ${ZIP_BOUNDS.nearbyLimit.max}` },
      },
    ]);
    expect('value' in r).toBe(false);
  });

  it('arguments named differently in GraphQL are mapped onto the schema first', () => {
    const v = argsOf(NearbyParams, (a: { code: string }) => ({ zip: a.code }))['~standard'];
    expect(v.validate({ code: '10001' })).toEqual({
      value: { zip: '10001', radiusMiles: ZIP_BOUNDS.radiusMiles.default, limit: ZIP_BOUNDS.nearbyLimit.default },
    });
    expect(v.validate({ code: '1' }).issues?.[0]?.problem).toMatchObject({ name: 'zip', value: '1', bound: 'exactly 5 digits' });
  });
});

describe('every kind of bound is named, also for schemas the API does not declare yet', () => {
  const issues = (schema: import('zod').ZodType, input: unknown) =>
    schema.safeParse(input).error!.issues.map((i) => problemOf(i, (typeof input === 'object' && input ? input : {}) as Record<string, unknown>));
  it('exclusive and inclusive maxima and minima, array and string lengths, a top-level value', async () => {
    const { z } = await import('zod');
    expect(issues(z.object({ n: z.number().lt(5) }), { n: 5 })[0]).toMatchObject({ name: 'n', bound: '< 5' });
    expect(issues(z.object({ n: z.number().max(5) }), { n: 6 })[0]).toMatchObject({ bound: '<= 5' });
    expect(issues(z.object({ xs: z.array(z.number()).min(2) }), { xs: [1] })[0]).toMatchObject({ bound: 'at least 2 items' });
    expect(issues(z.object({ xs: z.array(z.number()).min(1) }), { xs: [] })[0]).toMatchObject({ bound: 'at least 1 item' });
    expect(issues(z.object({ s: z.string().min(3) }), { s: 'ab' })[0]).toMatchObject({
      bound: 'at least 3 characters',
      message: 's must be at least 3 characters',
    });
    expect(issues(z.object({ s: z.string().min(1) }), { s: '' })[0]).toMatchObject({ bound: 'non-empty' });
    expect(issues(z.number(), 'x')[0]).toMatchObject({ name: 'input' });
    // A repeated parameter where one is expected: "a single" what it must be, an article dropped
    // only where it starts the phrase.
    expect(issues(z.object({ n: z.number({ error: 'a number of an hour' }) }), { n: [1, 2] })[0]).toMatchObject({ bound: 'a single number of an hour' });
    expect(issues(z.object({ n: z.number({ error: 'whole minutes of an hour' }) }), { n: [1, 2] })[0]).toMatchObject({
      bound: 'a single whole minutes of an hour',
    });
  });
});
