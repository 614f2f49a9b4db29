import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, readBody } from '../../src/http/body.js';
import { PendingSockets, type PendingLease } from '../../src/http/pending-sockets.js';
import type { Problem } from '../../src/lib/errors.js';

/** A request body as a stream, with the headers a client declared. */
function request(headers: Record<string, string> = {}) {
  const stream = new PassThrough() as PassThrough & { headers: Record<string, string> };
  stream.headers = headers;
  return stream;
}
const asRequest = (s: PassThrough) => s as unknown as IncomingMessage;

describe('reading a request body within its bound', () => {
  it('one chunk is the body as it came; several are joined', async () => {
    const one = request();
    const reading = readBody(asRequest(one), 100);
    const chunk = Buffer.from('{"query":"{ a }"}');
    one.end(chunk);
    expect(await reading).toBe(chunk);
    const many = request();
    const joined = readBody(asRequest(many), 100);
    many.write('ab');
    many.write('cd');
    many.end('e');
    expect((await joined).toString()).toBe('abcde');
    const empty = request();
    const none = readBody(asRequest(empty), 100);
    empty.end();
    expect((await none).length).toBe(0);
  });

  it('a declared length over the bound is refused before anything is read', async () => {
    const r = request({ 'content-length': '101' });
    await expect(readBody(asRequest(r), 100)).rejects.toEqual(new BodyTooLargeError(100));
    expect(r.listenerCount('data')).toBe(0);
    const exact = request({ 'content-length': '100' });
    const reading = readBody(asRequest(exact), 100);
    exact.end(Buffer.alloc(100));
    expect((await reading).length).toBe(100);
  });

  it('a body that grows past the bound is refused at the chunk that crosses it, the rest drained, the listeners gone', async () => {
    const r = request();
    const reading = readBody(asRequest(r), 10);
    r.write(Buffer.alloc(6));
    r.write(Buffer.alloc(5));
    const err = await reading.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BodyTooLargeError);
    expect((err as BodyTooLargeError).limit).toBe(10);
    expect((err as Error).message).toBe('request body larger than 10 bytes');
    for (const event of ['data', 'end', 'error', 'close']) expect(r.listenerCount(event)).toBe(0);
    // Drained, not paused: what the client still sends is read and dropped.
    expect(r.readableFlowing).toBe(true);
  });

  it('a stream error, or the client going away mid-body, ends the read with it', async () => {
    const failing = request();
    const a = readBody(asRequest(failing), 100);
    failing.write('ab');
    failing.destroy(new Error('socket hang up'));
    await expect(a).rejects.toThrow('socket hang up');
    const gone = request();
    const b = readBody(asRequest(gone), 100);
    gone.write('ab');
    gone.emit('close');
    await expect(b).rejects.toThrow('the client closed the request before its body was complete');
    for (const event of ['data', 'end', 'error', 'close']) expect(gone.listenerCount(event)).toBe(0);
  });
});

describe('WebSockets that have not said whose they are', () => {
  const isLease = (x: PendingLease | Problem): x is PendingLease => 'release' in x;

  it('past an address’s share, its next socket is refused (429, naming the bound); others still get in', () => {
    const pool = new PendingSockets({ perAddress: 2, total: 10 });
    expect(isLease(pool.admit('a', () => {}))).toBe(true);
    expect(isLease(pool.admit('a', () => {}))).toBe(true);
    const refused = pool.admit('a', () => {});
    expect(refused).toEqual({
      status: 429,
      code: 'TOO_MANY_CONNECTIONS',
      detail:
        "This address already has 2 WebSockets that have not sent a key; send the key in the upgrade's x-api-key header, or finish connection_init on those first.",
      errors: [
        {
          name: 'websockets without a key',
          value: 2,
          bound: 'at most 2 per client address (WS_PENDING_PER_ADDRESS)',
          message: 'websockets without a key must be at most 2 per client address (WS_PENDING_PER_ADDRESS)',
        },
      ],
      headers: ['retry-after', '1'],
    });
    expect(isLease(pool.admit('b', () => {}))).toBe(true);
    expect(pool.size).toBe(3);
  });

  it('a place given back is free again, once: releasing twice frees nothing more', () => {
    const pool = new PendingSockets({ perAddress: 1, total: 10 });
    const lease = pool.admit('a', () => {}) as PendingLease;
    lease.release();
    lease.release();
    expect(pool.size).toBe(0);
    const again = pool.admit('a', () => {});
    expect(isLease(again)).toBe(true);
    expect(isLease(pool.admit('a', () => {}))).toBe(false);
    expect(pool.size).toBe(1);
  });

  it('when the pool is full, the oldest socket of the address holding the most is closed for the newcomer', () => {
    const pool = new PendingSockets({ perAddress: 3, total: 4 });
    const closed: string[] = [];
    const admit = (address: string, name: string) => pool.admit(address, () => closed.push(name)) as PendingLease;
    admit('flood', 'f1');
    admit('small', 's1');
    admit('flood', 'f2');
    admit('flood', 'f3');
    expect(pool.size).toBe(4);
    admit('browser', 'b1');
    expect(closed).toEqual(['f1']);
    expect(pool.size).toBe(4);
    // The address with the most (still flood, 2 against 1 and 1) gives way again, its oldest first.
    admit('other', 'o1');
    expect(closed).toEqual(['f1', 'f2']);
    // One each now (flood f3, small, browser, other): the first address met that holds the most gives way.
    admit('late', 'l1');
    expect(closed).toEqual(['f1', 'f2', 'f3']);
    expect(pool.size).toBe(4);
  });

  it('an evicted socket’s place is not given back twice when it then closes', () => {
    const pool = new PendingSockets({ perAddress: 2, total: 2 });
    const first = pool.admit('a', () => {}) as PendingLease;
    pool.admit('a', () => {});
    pool.admit('b', () => {});
    expect(pool.size).toBe(2);
    first.release();
    expect(pool.size).toBe(2);
  });

  it('a full pool of no one evicts nothing (a pool of size 0 still admits)', () => {
    const pool = new PendingSockets({ perAddress: 1, total: 0 });
    expect(isLease(pool.admit('a', () => {}))).toBe(true);
    expect(pool.size).toBe(1);
  });
});
