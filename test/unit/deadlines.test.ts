import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deadlines, type Tracked } from '../../src/http/deadline.js';
import { ProviderCalls } from '../../src/lib/provider-calls.js';
import { PERCENT_ENCODING, readQuery } from '../../src/http/query-string.js';

/** A request as the dispatcher makes one: its expiries counted. */
function request(): Tracked & { expired: number } {
  const t = {
    due: 0,
    slot: -1,
    expired: 0,
    timeOut() {
      t.expired++;
    },
  };
  return t;
}

describe('request deadlines (one list swept, on the clock they are given)', () => {
  let clock = 0;
  const made: Deadlines[] = [];
  const deadlines = (ms: number) => {
    const d = new Deadlines(ms, () => clock);
    made.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of made.splice(0)) d.close();
    clock = 0;
  });
  /** Moves the test's clock to `at` and sweeps. */
  const sweepAt = (d: Deadlines, at: number) => {
    clock = at;
    d.sweep();
  };

  it('expires a request once, at its due time and not a moment before, and stops watching it', () => {
    const d = deadlines(1000);
    const r = request();
    clock = 50;
    d.track(r);
    expect(r.due).toBe(1050);
    expect(d.size).toBe(1);
    sweepAt(d, 1049);
    expect(r.expired).toBe(0);
    sweepAt(d, 1050);
    expect(r.expired).toBe(1);
    expect(d.size).toBe(0);
    sweepAt(d, 5000);
    expect(r.expired).toBe(1);
  });

  it('a request with provider calls open: they are given up at its due time, and it is expired at the next sweep only if still watched', () => {
    const d = deadlines(1000);
    const withCalls = (open: number) => {
      const r = Object.assign(request(), { providers: new ProviderCalls() });
      r.providers.open = open;
      return r;
    };
    const [waiting, answers, none] = [withCalls(1), withCalls(1), withCalls(0)];
    for (const r of [waiting, answers, none]) d.track(r);
    sweepAt(d, 1000);
    // The calls fail as the provider's; nothing is expired yet, save the request with none open.
    expect([waiting.providers.signal.aborted, answers.providers.signal.aborted, none.providers.signal.aborted]).toEqual([true, true, false]);
    expect([waiting.expired, answers.expired, none.expired, d.size]).toEqual([0, 0, 1, 2]);
    // One answered with the provider's failure by then; the other did not.
    d.done(answers);
    sweepAt(d, 1010);
    expect([waiting.expired, answers.expired, d.size]).toEqual([1, 0, 0]);
  });

  it('runs on the process’s monotonic clock unless given one', () => {
    const d = new Deadlines(1000);
    made.push(d);
    const r = request();
    const before = performance.now();
    d.track(r);
    expect(r.due).toBeGreaterThanOrEqual(before + 1000);
    expect(r.due).toBeLessThanOrEqual(performance.now() + 1000);
  });

  it('a request that answered in time is never expired; done again, or for one never tracked, is nothing', () => {
    const d = deadlines(100);
    const a = request();
    const b = request();
    const never = request();
    d.track(a);
    d.track(b);
    d.done(a);
    d.done(a);
    d.done(never);
    expect(d.size).toBe(1);
    sweepAt(d, 1000);
    expect([a.expired, b.expired, never.expired]).toEqual([0, 1, 0]);
  });

  it('tracked again, a request is due again from then, and is in the list once', () => {
    const d = deadlines(100);
    const r = request();
    d.track(r);
    clock = 80;
    d.track(r);
    expect(d.size).toBe(1);
    expect(r.due).toBe(180);
    sweepAt(d, 150);
    expect(r.expired).toBe(0);
    sweepAt(d, 180);
    expect(r.expired).toBe(1);
  });

  it('a sweep expires every request past due, the others kept in place whatever order they came and went', () => {
    const d = deadlines(100);
    const rs = Array.from({ length: 6 }, () => request());
    for (const [i, r] of rs.entries()) {
      clock = i * 10;
      d.track(r);
    }
    // One in the middle answered: the last took its place.
    d.done(rs[2]!);
    expect(rs[5]!.slot).toBe(2);
    sweepAt(d, 135);
    expect(rs.map((r) => r.expired)).toEqual([1, 1, 0, 1, 0, 0]);
    expect(d.size).toBe(2);
    // The two left still expire, and answering one then is nothing.
    sweepAt(d, 200);
    expect(rs.map((r) => r.expired)).toEqual([1, 1, 0, 1, 1, 1]);
    expect(d.size).toBe(0);
    d.done(rs[4]!);
    expect(d.size).toBe(0);
  });

  it('a slot that names another request is not that request: a stale slot removes nothing', () => {
    const d = deadlines(100);
    const a = request();
    const b = request();
    d.track(a);
    d.done(a);
    d.track(b);
    // a's slot (0) is now b's.
    expect(a.slot).toBe(b.slot);
    d.done(a);
    expect(d.size).toBe(1);
    sweepAt(d, 100);
    expect([a.expired, b.expired]).toEqual([0, 1]);
  });

  it.each([
    [8, 10],
    [400, 100],
    [60_000, 250],
  ])('with %i ms to answer, sweeps on its own every %i ms (a quarter of it, 10 to 250)', (ms, every) => {
    vi.useFakeTimers();
    try {
      const d = deadlines(ms);
      const r = request();
      d.track(r);
      // Past due at once on the test's clock; the sweep comes with the timer's next tick.
      clock = ms;
      vi.advanceTimersByTime(every - 1);
      expect(r.expired).toBe(0);
      vi.advanceTimersByTime(1);
      expect(r.expired).toBe(1);
      d.close();
      const late = request();
      d.track(late);
      clock += ms;
      vi.advanceTimersByTime(10 * every);
      expect(late.expired).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a query string read strictly', () => {
  it('parameters without an escape are read as they are', () => {
    const read = readQuery('a=1&b=two+words&c');
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect([...read.params]).toEqual([
      ['a', '1'],
      ['b', 'two words'],
      ['c', ''],
    ]);
  });

  it('valid escapes, a + among them, are read decoded', () => {
    const read = readQuery('q=caf%C3%A9+au+lait&%C3%A9=x');
    expect(read.ok && [...read.params]).toEqual([
      ['q', 'café au lait'],
      ['é', 'x'],
    ]);
  });

  it.each([
    ['q=%', 'q', '%'],
    ['q=%FF', 'q', '%FF'],
    ['ok=1&q=%ED%A0%80', 'q', '%ED%A0%80'],
    ['q=a%2', 'q', 'a%2'],
  ])('%s is refused, naming the parameter and its raw value', (query, name, value) => {
    expect(readQuery(query)).toEqual({ ok: false, name, value });
  });

  it('a pair with no name is refused by its value', () => {
    expect(readQuery('=%')).toEqual({ ok: false, name: '', value: '%' });
    expect(readQuery('=%41').ok).toBe(true);
  });

  it('a broken name is named as sent; a valid one decoded, + as a space', () => {
    expect(readQuery('%ZZ=1')).toEqual({ ok: false, name: '%ZZ', value: '1' });
    expect(readQuery('my+na%6De=%')).toEqual({ ok: false, name: 'my name', value: '%' });
    expect(readQuery('%')).toEqual({ ok: false, name: '%', value: '' });
  });

  it('the bound a refusal names', () => {
    expect(PERCENT_ENCODING).toBe('valid percent-encoded UTF-8');
  });
});
