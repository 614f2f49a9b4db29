import { describe, expect, it } from 'vitest';
import { argsOf, dropNulls } from '../../src/validation/args.js';
import { NearbyParams, ZIP_BOUNDS } from '../../src/validation/params.js';

/** GraphQL arguments through the same parameter schemas as REST (Pothos' validation plugin calls this). */
describe('GraphQL arguments through the shared parameter schemas', () => {
  it('null and absent arguments are dropped (the schema then applies its default); 0, "" and false are kept', () => {
    expect(dropNulls({ a: null, b: undefined, c: 0, d: '', e: false, f: 'x' })).toEqual({ c: 0, d: '', e: false, f: 'x' });
  });

  it('valid arguments come back parsed, with the defaults', () => {
    const v = argsOf(NearbyParams)['~standard'];
    expect(v.version).toBe(1);
    expect(v.vendor).toBe('ski-zip-gateway');
    expect(v.validate({ zip: '90210', radiusMiles: null, limit: '7' })).toEqual({ value: { zip: '90210', radiusMiles: ZIP_BOUNDS.radiusMiles.default, limit: 7 } });
  });

  it('invalid ones are issues, each with the problem REST would name: the parameter, its value and its bound', () => {
    const r = argsOf(NearbyParams)['~standard'].validate({ zip: '90210', radiusMiles: 0, limit: 1000 });
    expect(r.issues).toEqual([
      { message: expect.any(String), path: ['radiusMiles'], problem: { name: 'radiusMiles', value: 0, bound: '> 0', message: 'radiusMiles must be > 0' } },
      { message: expect.any(String), path: ['limit'], problem: { name: 'limit', value: 1000, bound: `<= ${ZIP_BOUNDS.nearbyLimit.max}`, message: `limit must be <= ${ZIP_BOUNDS.nearbyLimit.max}` } },
    ]);
    expect('value' in r).toBe(false);
  });

  it('arguments named differently in GraphQL are mapped onto the schema first', () => {
    const v = argsOf(NearbyParams, (a: { code: string }) => ({ zip: a.code }))['~standard'];
    expect(v.validate({ code: '10001' })).toEqual({ value: { zip: '10001', radiusMiles: ZIP_BOUNDS.radiusMiles.default, limit: ZIP_BOUNDS.nearbyLimit.default } });
    expect(v.validate({ code: '1' }).issues?.[0]?.problem).toMatchObject({ name: 'zip', value: '1', bound: 'exactly 5 digits' });
  });
});
