import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endSoon, nextTurn, pullWhileTurnLasts, STREAM_TURN_BUDGET_MS } from '../../src/lib/turn.js';

/**
 * endSoon on a real node:http server: an answer ends when the turn of the event loop has answered
 * what it read (not at once), at most 16 wait, each arrives whole, and work that yields a turn
 * (nextTurn) does not run ahead of an answer that waits.
 */
const held: ServerResponse[] = [];
const heldPaths: string[] = [];
let endedAtOnce: boolean | null = null;
let endedBeforeSlice: boolean | null = null;
const pair: [string, ServerResponse][] = [];
let onHeld: (() => void) | null = null;
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  if (req.url === '/broken' || req.url === '/beside-broken') {
    pair.push([req.url, res]);
    if (pair.length === 2) {
      // In one turn: an end that throws (a body of a type Node refuses), then a good one.
      endSoon(pair.find(([url]) => url === '/broken')![1], 42 as unknown as string);
      endSoon(pair.find(([url]) => url === '/beside-broken')![1], 'still whole');
    }
    return;
  }
  if (req.url === '/behind-work') {
    // Long work yielded a turn before this answer was made: its next slice must not run before the answer ends.
    const slice = nextTurn().then(() => (endedBeforeSlice = res.writableEnded));
    endSoon(res, 'answer made while work yields');
    void slice;
    return;
  }
  if (req.url === '/now') {
    endSoon(res, 'answer of /now');
    endedAtOnce = res.writableEnded;
    return;
  }
  held.push(res);
  heldPaths.push(req.url!);
  if (held.length === 20) onHeld?.();
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request(`${base}${path}`, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(text));
    })
      .on('error', reject)
      .end();
  });
}

describe('endSoon and nextTurn', () => {
  it('ends an answer after the handler returns, in the same turn, whole', async () => {
    expect(await get('/now')).toBe('answer of /now');
    expect(endedAtOnce).toBe(false);
  });

  it('an end that throws cuts its own connection only: the others of the turn still end whole', async () => {
    const [broken, beside] = await Promise.allSettled([get('/broken'), get('/beside-broken')]);
    expect(broken.status).toBe('rejected');
    expect(beside).toEqual({ status: 'fulfilled', value: 'still whole' });
  });

  it('ends the waiting answers before work that yielded a turn goes on', async () => {
    expect(await get('/behind-work')).toBe('answer made while work yields');
    expect(endedBeforeSlice).toBe(true);
  });

  it('ends the waiting answers at once when 16 wait, and the rest at the end of the turn', async () => {
    const all = Array.from({ length: 20 }, (_, i) => get(`/held/${i}`));
    await new Promise<void>((resolve) => (onHeld = resolve));
    const endedAfter: boolean[][] = [];
    held.forEach((res, i) => {
      endSoon(res, `answer of ${heldPaths[i]}`);
      endedAfter.push(held.map((r) => r.writableEnded));
    });
    // The 16th endSoon ended all 16 waiting; the 17th to 20th wait for the end of the turn.
    expect(endedAfter[14]!.filter(Boolean)).toHaveLength(0);
    expect(endedAfter[15]!.slice(0, 16).every(Boolean)).toBe(true);
    expect(endedAfter[19]!.slice(16).some(Boolean)).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect(held.every((r) => r.writableEnded)).toBe(true);
    expect(await Promise.all(all)).toEqual(Array.from({ length: 20 }, (_, i) => `answer of /held/${i}`));
  });

  it('runs one slice of long work per turn, taking turns across works in the order they asked', async () => {
    let turn = 0;
    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const ran: [string, number][] = [];
    const work = async (name: string, slices: number) => {
      for (let i = 0; i < slices; i++) {
        await nextTurn();
        ran.push([name, turn]);
      }
    };
    await Promise.all([work('a', 4), work('b', 4), work('c', 2)]);
    ticking = false;
    expect(ran.map(([name]) => name).join('')).toBe('abcabcabab');
    // No two slices share a turn: between any two, the loop went round (its I/O had its chance).
    const turns = ran.map(([, t]) => t);
    expect(new Set(turns).size).toBe(ran.length);
    expect(turns).toEqual([...turns].sort((x, y) => x - y));
  });
});

describe('pullWhileTurnLasts', () => {
  it('streams whose parts cost much (1 ms each, pulled back to back) share turns: none runs past its budget and one part', async () => {
    const costly = () => {
      const until = performance.now() + 1;
      while (performance.now() < until);
    };
    let pulled = 0;
    // Thirty streams of six parts, each part's work in a microtask after its pull, as a stream's
    // execution runs; each pulls its next as soon as one is written.
    const streams = Array.from(
      { length: 30 },
      () =>
        new Promise<void>((resolve) => {
          let left = 6;
          const pull = () =>
            void Promise.resolve().then(() => {
              costly();
              pulled++;
              if (--left === 0) resolve();
              else pullWhileTurnLasts(pull);
            });
          pull();
        }),
    );
    const perTurn: number[] = [];
    let last = 0;
    let probing = true;
    const probe = () => {
      perTurn.push(pulled - last);
      last = pulled;
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    await Promise.all(streams);
    probing = false;
    expect(pulled).toBe(180);
    // The thirty first parts were pulled before any budget applied (as thirty new streams are);
    // after them, a turn holds at most the budget's worth and the part that passed it.
    expect(perTurn[0]).toBeLessThanOrEqual(30 + STREAM_TURN_BUDGET_MS + 2);
    expect(Math.max(...perTurn.slice(1))).toBeLessThanOrEqual(STREAM_TURN_BUDGET_MS + 2);
    expect(perTurn.filter((n) => n > 0).length).toBeGreaterThanOrEqual(150 / (STREAM_TURN_BUDGET_MS + 2));
  });
});
