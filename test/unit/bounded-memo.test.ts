import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../src/domain/bounded-memo.js';

describe('a bounded memo', () => {
  it('keeps what it is given, up to its bound', () => {
    const memo = new BoundedMemo<string, number>(3);
    expect(memo.get('a')).toBeUndefined();
    memo.set('a', 1);
    memo.set('b', 2);
    memo.set('c', 3);
    expect(memo.size).toBe(3);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([1, 2, 3]);
    // A key it holds is replaced in place, not counted again.
    memo.set('c', 4);
    expect(memo.size).toBe(3);
    expect(memo.get('c')).toBe(4);
  });

  it('starts afresh with the entry past its bound: never more than the bound', () => {
    const memo = new BoundedMemo<number, string>(3);
    for (let i = 0; i < 3; i++) memo.set(i, `v${i}`);
    memo.set(3, 'v3');
    expect(memo.size).toBe(1);
    expect([memo.get(0), memo.get(3)]).toEqual([undefined, 'v3']);
    for (let i = 0; i < 100; i++) {
      memo.set(100 + i, 'x');
      expect(memo.size).toBeLessThanOrEqual(3);
    }
  });
});
