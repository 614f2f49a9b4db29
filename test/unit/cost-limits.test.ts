import { describe, expect, it } from 'vitest';
import { COST_LIMITS, overLimit } from '../../src/operation/steps/cost.js';

/**
 * The cost analysis' caps. Over HTTP, armor's depth limit (12) refuses deeper documents first
 * (hardening.test); the cost analysis' own depth cap of 14 stands behind it, checked here.
 */
describe('cost limits', () => {
  const within = { complexity: COST_LIMITS.complexity, depth: COST_LIMITS.depth, breadth: COST_LIMITS.breadth };
  it('each cap allows its bound and refuses one more, naming itself', () => {
    expect(overLimit(within)).toBeNull();
    for (const kind of ['depth', 'breadth', 'complexity'] as const) {
      const e = overLimit({ ...within, [kind]: COST_LIMITS[kind] + 1 });
      expect(e?.message, kind).toBe(
        `Query ${kind} ${COST_LIMITS[kind] + 1} is over the limit of ${COST_LIMITS[kind]}; ask for smaller pages or fewer nested lists.`,
      );
      expect(e?.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', status: 400 });
    }
    expect(COST_LIMITS).toEqual({ complexity: 250_000, depth: 14, breadth: 400 });
  });
});
