import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import type { Problem } from '../../src/lib/errors.js';
import { endStreamsOfRefusedKeys, STREAM_KEY_CHECK_MS } from '../../src/http/stream-keys.js';
import { isRefusal, StreamLimiter, type StreamHolder, type StreamLease, type StreamLimits } from '../../src/http/streams.js';

/** A holder that records how it was ended. */
function holder(keyId: number | null, address = '10.0.0.1', keyLimit: number | null = null) {
  const ends: (string | null)[] = [];
  const h: StreamHolder & { ends: (string | null)[] } = { keyId, address, keyLimit, ends, end: (reason) => void ends.push(reason?.code ?? null) };
  return h;
}
const LIMITS: StreamLimits = { perKey: 3, perAddress: 2, total: 5, maxLifetimeMs: 60_000 };
const REVOKED: Problem = { status: 401, code: 'UNAUTHENTICATED', detail: 'revoked' };
const QUOTA: Problem = { status: 429, code: 'QUOTA_EXCEEDED', detail: 'used up' };

afterEach(() => {
  vi.useRealTimers();
});

describe('the streams a client holds open', () => {
  it('per key: past its share a 429 naming the bound; a key with its own cap is held to that', () => {
    const limiter = new StreamLimiter(LIMITS);
    for (const address of ['a', 'a', 'b']) expect(isRefusal(limiter.admit(holder(1, address)))).toBe(false);
    expect(limiter.admit(holder(1, 'c'))).toEqual({
      status: 429,
      code: 'TOO_MANY_STREAMS',
      detail: 'This key already holds 3 open streams (SSE, multipart, WebSocket subscriptions, MCP sessions), the most it may hold; close one first.',
      errors: [{ name: 'streams', value: 3, bound: 'at most 3 open at once per key', message: 'streams must be at most 3 open at once per key' }],
      headers: ['retry-after', '1'],
    });
    expect(isRefusal(limiter.admit(holder(2, 'a', 1)))).toBe(false);
    const own = limiter.admit(holder(2, 'b', 1));
    expect(isRefusal(own) && own.errors).toEqual([
      { name: 'streams', value: 1, bound: 'at most 1 open at once per key', message: 'streams must be at most 1 open at once per key' },
    ]);
    expect(limiter.size).toBe(4);
  });

  it('per address within a key: another address of the key, or another key at the address, still gets in', () => {
    const limiter = new StreamLimiter({ ...LIMITS, perKey: 10 });
    limiter.admit(holder(1, 'a'));
    limiter.admit(holder(1, 'a'));
    const refused = limiter.admit(holder(1, 'a'));
    expect(isRefusal(refused) && [refused.status, refused.detail, refused.errors]).toEqual([
      429,
      "This address already holds 2 of this key's open streams, the most one address may hold of one key; close one first.",
      [
        {
          name: 'streams',
          value: 2,
          bound: 'at most 2 open at once per client address and key (STREAMS_PER_ADDRESS)',
          message: 'streams must be at most 2 open at once per client address and key (STREAMS_PER_ADDRESS)',
        },
      ],
    ]);
    expect(isRefusal(limiter.admit(holder(1, 'b')))).toBe(false);
    expect(isRefusal(limiter.admit(holder(2, 'a')))).toBe(false);
  });

  it('in all: past the total a 503 with Retry-After 5, whoever asks', () => {
    const limiter = new StreamLimiter({ ...LIMITS, total: 2 });
    limiter.admit(holder(1));
    limiter.admit(holder(2));
    expect(limiter.admit(holder(3))).toEqual({
      status: 503,
      code: 'TOO_MANY_STREAMS',
      detail: 'The server holds 2 streams, its most; try again later.',
      headers: ['retry-after', '5'],
    });
  });

  it('a stream released frees its place in every count, once', () => {
    const limiter = new StreamLimiter({ ...LIMITS, perKey: 1, perAddress: 1, total: 1 });
    const lease = limiter.admit(holder(1)) as StreamLease;
    expect(isRefusal(limiter.admit(holder(1)))).toBe(true);
    lease.release();
    lease.release();
    expect(limiter.size).toBe(0);
    expect(limiter.keys()).toEqual([]);
    expect(isRefusal(limiter.admit(holder(1)))).toBe(false);
    expect(isRefusal(limiter.admit(holder(2)))).toBe(true);
  });

  it("an address's count within a key goes down one a release, not to nothing", () => {
    const limiter = new StreamLimiter({ ...LIMITS, perKey: 10, perAddress: 2 });
    const first = limiter.admit(holder(1, 'a')) as StreamLease;
    limiter.admit(holder(1, 'a'));
    first.release();
    expect(isRefusal(limiter.admit(holder(1, 'a')))).toBe(false);
    expect(isRefusal(limiter.admit(holder(1, 'a')))).toBe(true);
  });

  it('AUTH=off streams count under no key, as one key', () => {
    const limiter = new StreamLimiter({ ...LIMITS, perKey: 1 });
    limiter.admit(holder(null));
    expect(isRefusal(limiter.admit(holder(null, 'b')))).toBe(true);
    expect(limiter.keys()).toEqual([null]);
  });

  it('each is closed, without a reason, at its longest lifetime, and its place freed', () => {
    vi.useFakeTimers();
    const limiter = new StreamLimiter({ ...LIMITS, maxLifetimeMs: 1000 });
    const h = holder(1);
    limiter.admit(h);
    vi.advanceTimersByTime(999);
    expect(h.ends).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(h.ends).toEqual([null]);
    expect(limiter.size).toBe(0);
    // One released before its time is never ended by it.
    const early = holder(2);
    (limiter.admit(early) as StreamLease).release();
    vi.advanceTimersByTime(5000);
    expect(early.ends).toEqual([]);
  });

  it('the connection policy takes back the oldest stream of the key holding the most', () => {
    const limiter = new StreamLimiter({ ...LIMITS, perKey: 5, perAddress: 5, total: 10 });
    const small = holder(1);
    const oldest = holder(2);
    const newer = holder(2);
    for (const h of [small, oldest, newer]) limiter.admit(h);
    expect(limiter.evictOne()).toBe(true);
    expect([small.ends, oldest.ends, newer.ends]).toEqual([[], [null], []]);
    expect(limiter.size).toBe(2);
    // One each now: the first key met gives way.
    expect(limiter.evictOne()).toBe(true);
    expect(small.ends).toEqual([null]);
    expect(limiter.evictOne()).toBe(true);
    expect(limiter.evictOne()).toBe(false);
  });

  it("a key's end tells each of its streams why; an MCP session is told its quota is used up and keeps its place", () => {
    const limiter = new StreamLimiter({ ...LIMITS, perKey: 5, perAddress: 5 });
    const a = holder(1);
    const b = holder(1);
    const other = holder(2);
    const told: string[] = [];
    const session = { ...holder(1), quotaUsedUp: (reason: Problem) => void told.push(reason.code) };
    for (const h of [a, b, other, session]) limiter.admit(h);
    expect(limiter.endKey(1, QUOTA)).toBe(2);
    expect([a.ends, b.ends, other.ends, session.ends, told]).toEqual([['QUOTA_EXCEEDED'], ['QUOTA_EXCEEDED'], [], [], ['QUOTA_EXCEEDED']]);
    expect(limiter.size).toBe(2);
    // Revoked, the session is ended too.
    expect(limiter.endKey(1, REVOKED)).toBe(1);
    expect(session.ends).toEqual(['UNAUTHENTICATED']);
    expect(limiter.endKey(1, REVOKED)).toBe(0);
    expect(limiter.endKey(null, REVOKED)).toBe(0);
    expect(limiter.keys()).toEqual([2]);
  });
});

describe('streams of keys refused since they opened', () => {
  const logger = pino({ level: 'silent' });

  it(`are ended within ${STREAM_KEY_CHECK_MS} ms, each key asked once a round, AUTH=off streams never`, async () => {
    vi.useFakeTimers();
    const limiter = new StreamLimiter({ ...LIMITS, perKey: 5, perAddress: 5 });
    const revoked = holder(1);
    const fine = holder(2);
    const open = holder(null);
    for (const h of [revoked, fine, open]) limiter.admit(h);
    const asked: number[] = [];
    let refuse = false;
    const watch = endStreamsOfRefusedKeys(
      limiter,
      (keyId) => {
        asked.push(keyId);
        return keyId === 1 && refuse ? REVOKED : null;
      },
      logger,
    );
    await vi.advanceTimersByTimeAsync(STREAM_KEY_CHECK_MS);
    expect(asked).toEqual([1, 2]);
    refuse = true;
    await vi.advanceTimersByTimeAsync(STREAM_KEY_CHECK_MS - 1);
    expect(revoked.ends).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect([revoked.ends, fine.ends, open.ends]).toEqual([['UNAUTHENTICATED'], [], []]);
    watch.stop();
    await vi.advanceTimersByTimeAsync(10 * STREAM_KEY_CHECK_MS);
    expect(asked).toEqual([1, 2, 1, 2]);
  });

  it('says in the log which key had how many streams ended, and why; nothing when none was', async () => {
    vi.useFakeTimers();
    const limiter = new StreamLimiter({ ...LIMITS, perKey: 5, perAddress: 5 });
    limiter.admit(holder(7));
    limiter.admit(holder(7));
    // Key 8 holds only a session, which a used-up quota does not end.
    limiter.admit({ ...holder(8), quotaUsedUp: () => {} });
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const watch = endStreamsOfRefusedKeys(limiter, (keyId) => (keyId === 7 ? REVOKED : QUOTA), log);
    await vi.advanceTimersByTimeAsync(STREAM_KEY_CHECK_MS);
    watch.stop();
    expect(lines.map(({ keyId, code, ended, msg }) => ({ keyId, code, ended, msg }))).toEqual([
      { keyId: 7, code: 'UNAUTHENTICATED', ended: 2, msg: 'open streams of a key ended: it was revoked or its quota is used up' },
    ]);
  });

  it('one round at a time: a slow answer is not asked again over it; a failing one is logged and the next round goes on', async () => {
    vi.useFakeTimers();
    const limiter = new StreamLimiter(LIMITS);
    const h = holder(1);
    limiter.admit(h);
    let answer: ((p: Problem | null) => void) | undefined;
    let calls = 0;
    const warned: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warned.push(`${JSON.parse(line).msg}: ${JSON.parse(line).err?.message}`) });
    const watch = endStreamsOfRefusedKeys(
      limiter,
      () => {
        calls++;
        if (calls === 2) throw new Error('redis away');
        return new Promise<Problem | null>((resolve) => (answer = resolve));
      },
      log,
    );
    await vi.advanceTimersByTimeAsync(5 * STREAM_KEY_CHECK_MS);
    expect(calls).toBe(1);
    answer!(null);
    await vi.advanceTimersByTimeAsync(STREAM_KEY_CHECK_MS);
    expect(calls).toBe(2);
    expect(warned).toEqual(['the keys holding streams could not be checked: redis away']);
    await vi.advanceTimersByTimeAsync(STREAM_KEY_CHECK_MS);
    expect(calls).toBe(3);
    answer!(QUOTA);
    await vi.advanceTimersByTimeAsync(0);
    expect(h.ends).toEqual(['QUOTA_EXCEEDED']);
    watch.stop();
  });
});
