import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encode, encodeOnce, offLoopCompressions, Representations } from '../../src/http/compression.js';

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

describe('a kept answer', () => {
  it('holds its bytes in a buffer of their own, not a slice of the shared pool; one sent once stays a string', () => {
    const body = JSON.stringify({ results: Array.from({ length: 40 }, (_, i) => ({ zip: String(10000 + i), city: 'Springfield' })) });
    expect(body.length).toBeGreaterThan(1400);
    expect(body.length).toBeLessThan(4096);
    const kept = new Representations(body, true);
    expect(Buffer.isBuffer(kept.body)).toBe(true);
    expect((kept.body as Buffer).buffer.byteLength).toBe(body.length);
    expect(kept.body.toString()).toBe(body);
    expect(new Representations(body, false).body).toBe(body);
    expect(new Representations(body, false).etag).toBe(kept.etag);
  });
});
