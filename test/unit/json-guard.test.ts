import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/http/json-guard.js';

/** The nesting depth of a parsed value, by walking it (the reference). */
const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as object).map(depthOf)) : 0);

describe('nestsDeeperThan', () => {
  it('agrees with the depth of the parsed value, for any JSON (strings with brackets, quotes and escapes included)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 14 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(nestsDeeperThan(text, max)).toBe(depthOf(value) > max);
        expect(nestsDeeperThan(Buffer.from(text), max)).toBe(depthOf(value) > max);
      }),
    );
  });

  it('is exact at the bound, and answers for 100,000 levels without a stack', () => {
    const nested = (d: number) => '['.repeat(d) + ']'.repeat(d);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan(nested(100_000))).toBe(true);
    expect(nestsDeeperThan(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`)).toBe(false);
  });

  it('a closing brace or bracket ends its level: many siblings of either are as shallow as one', () => {
    expect(nestsDeeperThan(`[${Array(100).fill('{}').join(',')}]`, 2)).toBe(false);
    expect(nestsDeeperThan(`[${Array(100).fill('[]').join(',')}]`, 2)).toBe(false);
    expect(nestsDeeperThan(`[${Array(100).fill('{"a":[{}]}').join(',')}]`, 4)).toBe(false);
    expect(nestsDeeperThan(`[${Array(100).fill('{"a":[{}]}').join(',')}]`, 3)).toBe(true);
  });
});
