import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encode, encodeOnce, offLoopCompressions, Representations } from '../../src/http/compression.js';

/** A body over the size compressed on the event loop (32 KB), different for each `seed`. */
const largeBody = (seed: number) =>
  JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ zip: String(10000 + ((i * 7919 + seed) % 90000)), city: `City ${seed}-${i % 97}` })));

describe('compression off the event loop', () => {
  it('runs at most two large compressions at a time; the rest wait and all come out whole', async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => largeBody(i));
    const made = bodies.map((body, i) => encode(Buffer.from(body), i % 2 ? 'br' : 'gzip', 'answer'));
    // The limiter starts its tasks a microtask later.
    await Promise.resolve();
    expect(offLoopCompressions.running()).toBe(2);
    expect(offLoopCompressions.waiting()).toBe(4);
    const out = await Promise.all(made);
    expect(offLoopCompressions.running() + offLoopCompressions.waiting()).toBe(0);
    for (const [i, bytes] of out.entries()) expect((i % 2 ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString()).toBe(bodies[i]);
  });

  it('a one-off answer does not wait, holding its bytes, while both threads are busy: it is compressed at once', async () => {
    const keptBodies = [largeBody(10), largeBody(11), largeBody(12)];
    const kept = keptBodies.map((body) => encode(Buffer.from(body), 'gzip', 'answer'));
    await Promise.resolve();
    expect(offLoopCompressions.running()).toBe(2);
    expect(offLoopCompressions.waiting()).toBe(1);
    // Both threads taken: these are compressed on the event loop, the queue unchanged.
    const later = [largeBody(13), largeBody(14)];
    const now = [encodeOnce(later[0]!, 'gzip', 'answer'), encodeOnce(later[1]!, 'br', 'answer')];
    await Promise.resolve();
    expect(offLoopCompressions.running()).toBe(2);
    expect(offLoopCompressions.waiting()).toBe(1);
    expect(gunzipSync(await now[0]!).toString()).toBe(later[0]);
    expect(brotliDecompressSync(await now[1]!).toString()).toBe(later[1]);
    for (const [i, bytes] of (await Promise.all(kept)).entries()) expect(gunzipSync(bytes).toString()).toBe(keptBodies[i]);
    expect(offLoopCompressions.running() + offLoopCompressions.waiting()).toBe(0);
    // With a thread free, a one-off answer goes to it.
    const alone = encodeOnce(largeBody(15), 'gzip', 'answer');
    await Promise.resolve();
    expect(offLoopCompressions.running()).toBe(1);
    expect(gunzipSync(await alone).toString()).toBe(largeBody(15));
  });

  it('a one-off answer too large to hold the event loop for waits its turn like the rest', async () => {
    const huge = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ zip: String(10000 + ((i * 7919) % 90000)), city: `Town ${i % 997}` })));
    expect(huge.length).toBeGreaterThan(512 * 1024);
    const kept = [largeBody(20), largeBody(21)].map((body) => encode(Buffer.from(body), 'gzip', 'answer'));
    await Promise.resolve();
    const made = encodeOnce(huge, 'gzip', 'answer');
    await Promise.resolve();
    expect(offLoopCompressions.running() + offLoopCompressions.waiting()).toBe(3);
    expect(gunzipSync(await made).toString()).toBe(huge);
    await Promise.all(kept);
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

describe('where a compression runs, at its bounds', () => {
  it('a body of exactly 32 KiB is compressed on the event loop; one byte more goes to zlib’s threads', async () => {
    const at = encode(Buffer.alloc(32 * 1024, 97), 'gzip', 'answer');
    await Promise.resolve();
    expect(offLoopCompressions.running()).toBe(0);
    const over = encode(Buffer.alloc(32 * 1024 + 1, 97), 'gzip', 'answer');
    await Promise.resolve();
    expect(offLoopCompressions.running()).toBe(1);
    expect(gunzipSync(await at).length).toBe(32 * 1024);
    expect(gunzipSync(await over).length).toBe(32 * 1024 + 1);
  });

  it('a one-off answer of exactly 512 KiB, with both threads busy and none waiting, is compressed at once', async () => {
    const kept = [largeBody(30), largeBody(31)].map((body) => encode(Buffer.from(body), 'gzip', 'answer'));
    await Promise.resolve();
    expect([offLoopCompressions.running(), offLoopCompressions.waiting()]).toEqual([2, 0]);
    const edge = 'x'.repeat(512 * 1024);
    const made = encodeOnce(edge, 'gzip', 'answer');
    await Promise.resolve();
    expect([offLoopCompressions.running(), offLoopCompressions.waiting()]).toEqual([2, 0]);
    expect(gunzipSync(await made).toString()).toBe(edge);
    await Promise.all(kept);
  });
});

describe('a representation’s bookkeeping', () => {
  it('a body given as bytes is kept as those bytes', () => {
    const bytes = Buffer.from('x'.repeat(3000));
    expect(new Representations(bytes).body).toBe(bytes);
  });

  it('a coding still being made counts no bytes; a failed one is forgotten, so the next ask makes it again', async () => {
    const rep = new Representations(largeBody(40));
    const making = rep.in('br', 'answer');
    expect(rep.encodedBytes).toBe(0);
    const br = await making;
    expect(rep.encodedBytes).toBe(br.length);
    await expect(rep.in('gzip', 'no such effort' as never)).rejects.toThrow();
    expect(gunzipSync(await rep.in('gzip', 'answer')).toString()).toBe(largeBody(40));
  });

  it('only a leading W/ is a weak tag’s mark: a tag with W/ after it is not this one', () => {
    const rep = new Representations('{"a":1}');
    expect(rep.matches(`W/${rep.etag}`)).toBe(true);
    expect(rep.matches(`${rep.etag}W/`)).toBe(false);
  });
});
