import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { cutAtDeadline, DEFERRED_TIMEOUT_MESSAGE, type IncrementalPart } from '../../src/graphql/incremental.js';

/** An incremental result whose second part never comes; records whether it was told to stop. */
function stuckAfterFirst() {
  const state = { returned: false };
  const parts: AsyncIterable<IncrementalPart> = {
    [Symbol.asyncIterator]: () => {
      let i = 0;
      return {
        next: () => (i++ === 0 ? Promise.resolve({ done: false, value: { data: { a: 1 }, hasNext: true } }) : new Promise(() => {})),
        return: () => {
          state.returned = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  return { parts, state };
}

const collect = async (it: AsyncIterable<IncrementalPart>) => {
  const out: IncrementalPart[] = [];
  for await (const p of it) out.push(p);
  return out;
};

describe('incremental results at the deadline', () => {
  it('parts still to come when the signal aborts are cut: a last part with code TIMEOUT, and the source is told to stop', async () => {
    const { parts, state } = stuckAfterFirst();
    const controller = new AbortController();
    const it = cutAtDeadline(parts, controller.signal, (r) => r)[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual({ data: { a: 1 }, hasNext: true });
    const pending = it.next();
    controller.abort();
    const last = (await pending).value as IncrementalPart;
    expect(last.hasNext).toBe(false);
    expect(last.incremental![0]!.errors![0]).toMatchObject({ message: DEFERRED_TIMEOUT_MESSAGE, extensions: { code: 'TIMEOUT' } });
    expect((await it.next()).done).toBe(true);
    expect(state.returned).toBe(true);
  });

  it('a signal aborted before the first part: the cut is the last part', async () => {
    const { parts } = stuckAfterFirst();
    const out = await collect(cutAtDeadline(parts, AbortSignal.abort(), (r) => r));
    // The first part may win the race or not; the last is always the cut.
    expect(out.at(-1)).toMatchObject({ hasNext: false, incremental: [{ errors: [{ extensions: { code: 'TIMEOUT' } }] }] });
  });

  it('every part is masked, and every piece of a later part', async () => {
    const secret = new GraphQLError('SQLITE_BUSY at /srv/x.js:1');
    const source = (async function* () {
      yield { data: { a: 1 }, errors: [secret], hasNext: true } as IncrementalPart;
      yield { incremental: [{ errors: [secret] }, { errors: [secret] }], hasNext: false } as IncrementalPart;
    })();
    const masked = new GraphQLError('Unexpected error.');
    const mask = <R extends { errors?: readonly GraphQLError[] }>(r: R): R => (r.errors ? { ...r, errors: r.errors.map(() => masked) } : r);
    const out = await collect(cutAtDeadline(source, new AbortController().signal, mask));
    expect(JSON.stringify(out)).not.toMatch(/SQLITE/);
    expect(out).toHaveLength(2);
    expect(out[1]!.incremental!.every((p) => p.errors![0] === masked)).toBe(true);
  });
});
