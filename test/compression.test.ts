import { Agent, request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../src/app/start.js';
import { startTestServer, TEST_KEY } from './helpers/server.js';

/**
 * Compression as clients see it on the wire (node:http, no automatic decoding): JSON answers above
 * the threshold in br or gzip as Accept-Encoding asks, with Vary and an ETag per representation;
 * small answers as they are; GraphiQL as a small page and long-cached files.
 */

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

let app: RunningApp;
beforeAll(async () => {
  app = await startTestServer();
});
afterAll(() => app?.close());

function raw(path: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${app.url}${path}`, { method, headers: { 'x-api-key': TEST_KEY, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const decoded = (r: Raw) => {
  const coding = r.headers['content-encoding'];
  return (coding === 'br' ? brotliDecompressSync(r.bytes) : coding === 'gzip' ? gunzipSync(r.bytes) : r.bytes).toString('utf8');
};

const BIG = '/api/states/CA/zipcodes?limit=1000';

describe('REST answers', () => {
  it('a large answer goes out in br or gzip as asked, each with its own ETag, the same content, and Vary', async () => {
    const plain = await raw(BIG);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.bytes.length).toBeGreaterThan(200_000);
    // JSON answers prefer gzip (as small as brotli's quick levels on our JSON, cheaper); br when only br is accepted.
    expect((await raw(BIG, { 'accept-encoding': 'gzip, deflate, br' })).headers['content-encoding']).toBe('gzip');
    const br = await raw(BIG, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 10);
    expect(decoded(br)).toBe(plain.bytes.toString('utf8'));
    const gz = await raw(BIG, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(decoded(gz)).toBe(plain.bytes.toString('utf8'));
    expect(new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]).size).toBe(3);
    expect(Number(br.headers['content-length'])).toBe(br.bytes.length);
  });

  it('follows q-values: br refused means gzip, nothing acceptable but identity means as it is', async () => {
    expect((await raw(BIG, { 'accept-encoding': 'br;q=0, gzip;q=0.5' })).headers['content-encoding']).toBe('gzip');
    expect((await raw(BIG, { 'accept-encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
    expect((await raw(BIG, { 'accept-encoding': 'gzip;q=0, br;q=0' })).headers['content-encoding']).toBeUndefined();
    expect((await raw(BIG, { 'accept-encoding': '*' })).headers['content-encoding']).toMatch(/^(br|gzip)$/);
  });

  it('If-None-Match with the tag of any representation is a 304 carrying the tag of the one asked for', async () => {
    const br = await raw(BIG, { 'accept-encoding': 'br' });
    const gz304 = await raw(BIG, { 'accept-encoding': 'gzip', 'if-none-match': String(br.headers.etag) });
    expect(gz304.status).toBe(304);
    expect(gz304.bytes.length).toBe(0);
    const gz = await raw(BIG, { 'accept-encoding': 'gzip' });
    expect(gz304.headers.etag).toBe(gz.headers.etag);
    expect((await raw(BIG, { 'if-none-match': '"something-else"' })).status).toBe(200);
  });

  it('a representation is the same bytes with the same ETag whether computed or kept in the cache', async () => {
    const path = '/api/states/TX/zipcodes?limit=900';
    // The first answer is computed, the second is stored, the third comes from the cache.
    const [first, second, third] = [
      await raw(path, { 'accept-encoding': 'gzip' }),
      await raw(path, { 'accept-encoding': 'gzip' }),
      await raw(path, { 'accept-encoding': 'gzip' }),
    ];
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(new Set([first.headers.etag, second.headers.etag, third.headers.etag]).size).toBe(1);
    expect(first.bytes.equals(second.bytes) && second.bytes.equals(third.bytes)).toBe(true);
  });

  it('a small answer (one ZIP) goes out as it is, without Vary', async () => {
    const r = await raw('/api/zip/90210', { 'accept-encoding': 'br, gzip' });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.headers.vary).toBeUndefined();
    expect(JSON.parse(r.bytes.toString()).zip).toBe('90210');
  });
});

describe('/graphql and /openapi.json', () => {
  it('a large GraphQL answer is compressed (gzip preferred, br when only br is accepted), a small one is not', async () => {
    const post = (query: string, encoding: string) =>
      raw('/graphql', { 'content-type': 'application/json', 'accept-encoding': encoding }, 'POST', JSON.stringify({ query }));
    const big = await post('{ state(code: "CA") { zipcodes(limit: 1000) { zip city county lat lng } } }', 'gzip, br');
    expect(big.status).toBe(200);
    expect(big.headers['content-encoding']).toBe('gzip');
    expect(big.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(decoded(big)).data.state.zipcodes).toHaveLength(1000);
    const brOnly = await post('{ state(code: "CA") { zipcodes(limit: 1000) { zip } } }', 'br');
    expect(brOnly.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decoded(brOnly)).data.state.zipcodes).toHaveLength(1000);
    const small = await post('{ zip(zip: "90210") { city } }', 'gzip, br');
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.bytes.toString()).data.zip.city).toBe('Beverly Hills');
  });

  it('a large answer sent as it is (head and body written apart) is whole, and the connection serves the next request', async () => {
    // Over 64 KB a string body is written beside its head (exchange.ts); one kept-alive socket
    // carries two such answers and a small one after them.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const body = JSON.stringify({
      query: '{ state(code: "NM") { zipcodes(limit: 1000) { zip city stateCode stateName county countyFips lat lng timezone lastUpdated } } }',
    });
    const ask = (payload: string) =>
      new Promise<{ headers: Record<string, string | string[] | undefined>; bytes: Buffer; reused: boolean }>((resolve, reject) => {
        const req = request(`${app.url}/graphql`, { method: 'POST', agent, headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks), reused: req.reusedSocket }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(payload);
      });
    try {
      const first = await ask(body);
      const second = await ask(body);
      const small = await ask(JSON.stringify({ query: '{ zip(zip: "90210") { city } }' }));
      for (const big of [first, second]) {
        expect(big.headers['content-encoding']).toBeUndefined();
        expect(big.bytes.length).toBeGreaterThan(64 * 1024);
        expect(Number(big.headers['content-length'])).toBe(big.bytes.length);
        expect(JSON.parse(big.bytes.toString('utf8')).data.state.zipcodes.length).toBeGreaterThan(300);
      }
      // Not only ASCII: the length counts bytes (Doña Ana County), not characters.
      expect(first.bytes.toString('utf8')).toContain('"Doña Ana"');
      const dataOf = (r: { bytes: Buffer }) => JSON.stringify(JSON.parse(r.bytes.toString('utf8')).data);
      expect(dataOf(second)).toBe(dataOf(first));
      expect([second.reused, small.reused]).toEqual([true, true]);
      expect(JSON.parse(small.bytes.toString('utf8')).data.zip.city).toBe('Beverly Hills');
    } finally {
      agent.destroy();
    }
  });

  it('/openapi.json is compressed, with an ETag per representation', async () => {
    const br = await raw('/openapi.json', { 'accept-encoding': 'br' });
    const plain = await raw('/openapi.json');
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decoded(br)).openapi).toMatch(/^3\.1/);
    expect(br.headers.etag).not.toBe(plain.headers.etag);
    expect(decoded(br)).toBe(plain.bytes.toString());
  });
});

describe('GraphiQL', () => {
  it('is a small page whose script and styles are files kept for a year, compressed, and 404 under any other hash', async () => {
    const page = await raw('/graphql', { accept: 'text/html', 'accept-encoding': 'br' });
    expect(page.status).toBe(200);
    const html = decoded(page);
    expect(html.length).toBeLessThan(20_000);
    expect(html).toContain('name="viewport"');
    const script = html.match(/<script src="(\/graphiql\/graphiql\.[0-9a-f]{12}\.js)"><\/script>/)?.[1];
    const style = html.match(/<link rel="stylesheet" href="(\/graphiql\/graphiql\.[0-9a-f]{12}\.css)">/)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    for (const [file, type] of [
      [script!, /javascript/],
      [style!, /css/],
    ] as const) {
      const r = await raw(file, { 'accept-encoding': 'br' }, 'GET');
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(type);
      expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(r.headers['content-encoding']).toBe('br');
      expect(decoded(r).length).toBeGreaterThan(500_000);
    }
    expect((await raw('/graphiql/graphiql.000000000000.js')).status).toBe(404);
    // Served without a key, like the page.
    expect((await raw(script!, { 'x-api-key': '' })).status).toBe(200);
  });
});
