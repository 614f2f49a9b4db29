import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encode, encodeOnce, offLoopCompressions } from '../../src/http/compression.js';

/** A body over the size compressed on the event loop (32 KB), different for each `seed`. */
const largeBody = (seed: number) => JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ zip: String(10000 + ((i * 7919 + seed) % 90000)), city: `City ${seed}-${i % 97}` })));

describe('compression off the event loop', () => {
  it('runs at most two large compressions at a time; the rest wait and all come out whole', async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => largeBody(i));
    const made = bodies.map((body, i) => (i % 2 ? encodeOnce(body, 'br', 'answer') : encode(Buffer.from(body), 'gzip', 'answer')));
    // The limiter starts its tasks a microtask later.
    await Promise.resolve();
    expect(offLoopCompressions.running()).toBe(2);
    expect(offLoopCompressions.waiting()).toBe(4);
    const out = await Promise.all(made);
    expect(offLoopCompressions.running() + offLoopCompressions.waiting()).toBe(0);
    out.forEach((bytes, i) => expect((i % 2 ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString()).toBe(bodies[i]));
  });

  it('a small body is compressed at once, outside the queue', async () => {
    const body = JSON.stringify({ city: 'Beverly Hills'.repeat(200) });
    const made = encodeOnce(body, 'gzip', 'answer');
    expect(offLoopCompressions.running() + offLoopCompressions.waiting()).toBe(0);
    expect(gunzipSync(await made).toString()).toBe(body);
  });
});
