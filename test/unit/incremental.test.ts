import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { cutAtDeadline, DEFERRED_TIMEOUT_MESSAGE, type IncrementalPart } from '../../src/operation/incremental.js';
import { finalizeStep, UNEXPECTED_MESSAGE } from '../../src/operation/steps/finalize.js';
import { TRANSPORTS, type Operation } from '../../src/operation/operation.js';
import type { GraphQLContext } from '../../src/graphql/context.js';
import { createLogger } from '../../src/lib/logger.js';

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
    const it = cutAtDeadline(parts, controller.signal)[Symbol.asyncIterator]();
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
    const out = await collect(cutAtDeadline(parts, AbortSignal.abort()));
    // The first part may win the race or not; the last is always the cut.
    expect(out.at(-1)).toMatchObject({ hasNext: false, incremental: [{ errors: [{ extensions: { code: 'TIMEOUT' } }] }] });
  });

  it('the finalize step masks every part of a stream, and every piece of a later part; the first part carries the request id', async () => {
    const secret = new GraphQLError('SQLITE_BUSY at /srv/x.js:1', { originalError: new Error('SQLITE_BUSY at /srv/x.js:1') });
    const source = (async function* () {
      yield { data: { a: 1 }, errors: [secret], hasNext: true } as IncrementalPart;
      yield { incremental: [{ errors: [secret] }, { errors: [secret] }], hasNext: false } as IncrementalPart;
    })();
    const context = { requestId: 'req-1', logger: createLogger('silent'), budgetHolder: null } as unknown as GraphQLContext;
    const op = { request: {}, transport: TRANSPORTS.sse, context } as Operation;
    const outcome = finalizeStep({ hideSuggestions: false }).done!(op, {
      kind: 'stream',
      incremental: true,
      parts: cutAtDeadline(source, new AbortController().signal),
    });
    if (outcome.kind !== 'stream') throw new Error(`a stream stays a stream, not a ${outcome.kind}`);
    const out = await collect(outcome.parts as AsyncIterable<IncrementalPart>);
    expect(JSON.stringify(out)).not.toMatch(/SQLITE/);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({
      errors: [{ message: UNEXPECTED_MESSAGE, extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      extensions: { requestId: 'req-1' },
    });
    expect(out[1]!.incremental).toHaveLength(2);
    for (const piece of out[1]!.incremental!)
      expect(piece.errors).toMatchObject([{ message: UNEXPECTED_MESSAGE, extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
  });
});
