import { constants, brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { compressingStream, encode, Representations } from '../../src/http/compression.js';
import { sendProblem } from '../../src/http/problem.js';
import { preflight } from '../../src/http/security.js';
import { StaticAsset } from '../../src/http/static-asset.js';
import { ask, closeServers, rawGet, serving } from './serving.js';

afterEach(closeServers);

describe('problem+json through an exchange', () => {
  it('its status, the problem type, no-store, the problem’s own headers, and a body naming the request', async () => {
    const url = await serving((ex, req) =>
      req.url === '/plain'
        ? sendProblem(ex, { status: 404, code: 'NOT_FOUND', detail: 'No such path' })
        : sendProblem(ex, { status: 429, code: 'RATE_LIMITED', detail: 'Slow down', headers: ['retry-after', '2'], errors: [{ name: 'x' }] }),
    );
    const plain = await ask(`${url}/plain`);
    expect([plain.status, plain.headers.get('content-type'), plain.headers.get('cache-control')]).toEqual([
      404,
      'application/problem+json; charset=utf-8',
      'no-store',
    ]);
    expect(await plain.json()).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'No such path',
      instance: '/plain',
      code: 'NOT_FOUND',
      requestId: 'req-42',
    });
    const limited = await ask(`${url}/limited?a=1`);
    expect([limited.status, limited.headers.get('retry-after'), limited.headers.get('cache-control')]).toEqual([429, '2', 'no-store']);
    expect(await limited.json()).toMatchObject({ instance: '/limited?a=1', code: 'RATE_LIMITED', errors: [{ name: 'x' }] });
  });
});

describe('CORS preflight', () => {
  const origins = ['https://app.example'];
  const allowed = [
    ['access-control-allow-headers', 'x-api-key, content-type, accept, x-request-id, x-graphql-yoga-csrf, if-none-match'],
    ['access-control-allow-methods', 'GET, POST, OPTIONS'],
    ['access-control-max-age', '600'],
  ];
  const cors = (r: Response) => [...r.headers].filter(([name]) => name.startsWith('access-control-'));

  it('204 with the methods, headers and max age for an allowed origin; 204 with none for another, or none given', async () => {
    const url = await serving((ex) => preflight(ex, origins));
    const yes = await ask(url, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
    expect([yes.status, cors(yes)]).toEqual([204, allowed]);
    const no = await ask(url, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect([no.status, cors(no)]).toEqual([204, []]);
    const none = await ask(url, { method: 'OPTIONS' });
    expect([none.status, cors(none)]).toEqual([204, []]);
  });

  it('CORS_ORIGINS=* allows any origin, but a request with no Origin still gets nothing', async () => {
    const url = await serving((ex) => preflight(ex, ['*']));
    expect(cors(await ask(url, { method: 'OPTIONS', headers: { origin: 'https://any.example' } }))).toEqual(allowed);
    expect(cors(await ask(url, { method: 'OPTIONS' }))).toEqual([]);
  });
});

describe('a static asset', () => {
  // Varied enough that gzip 9 and gzip's default level differ: the coding made ahead is gzip 9.
  const large = Array.from({ length: 600 }, (_, i) => `console.log(${(i * 7919) % 1009}, "graphiql ${i % 37}");`).join('\n');

  it('made once, on first use; compressed with brotli and gzip ahead of any request for them; no-cache unless told', async () => {
    let made = 0;
    const asset = new StaticAsset('text/javascript', () => {
      made++;
      return large;
    });
    const url = await serving((ex) => asset.serve(ex));
    expect(made).toBe(0);
    const br = await rawGet(url, { 'accept-encoding': 'br' });
    expect([br.status, br.headers['content-type'], br.headers['content-encoding'], br.headers['cache-control']]).toEqual([
      200,
      'text/javascript',
      'br',
      'no-cache',
    ]);
    expect(brotliDecompressSync(br.body).toString()).toBe(large);
    const rep = await asset.load();
    expect(gzipSync(Buffer.from(large), { level: 9 }).length).not.toBe(gzipSync(Buffer.from(large)).length);
    // Both codings were made when it was: their bytes are held before anyone asked for gzip.
    expect(rep.encodedBytes).toBe(br.body.length + gzipSync(Buffer.from(large), { level: 9 }).length);
    const gz = await rawGet(url, { 'accept-encoding': 'gzip', 'if-none-match': `W/"other", ${rep.etagOf('gzip')}` });
    expect([gz.status, gz.headers.etag]).toEqual([304, rep.etagOf('gzip')]);
    expect(made).toBe(1);
  });

  it('a small one is not compressed; its own Cache-Control when given one', async () => {
    const asset = new StaticAsset('text/css', () => 'a{}', 'public, max-age=31536000, immutable');
    const url = await serving((ex) => asset.serve(ex));
    const r = await rawGet(url, { 'accept-encoding': 'br, gzip' });
    expect([r.headers['content-encoding'], r.headers['cache-control'], r.body.toString()]).toEqual([undefined, 'public, max-age=31536000, immutable', 'a{}']);
    expect((await asset.load()).encodedBytes).toBe(0);
  });

  it('a making that failed is made again on the next use, not kept as a failure', async () => {
    let attempts = 0;
    const asset = new StaticAsset('text/plain', async () => {
      if (++attempts === 1) throw new Error('not built yet');
      return 'built';
    });
    await expect(asset.load()).rejects.toThrow('not built yet');
    // The failure is forgotten once it has settled.
    await new Promise((r) => setImmediate(r));
    expect((await asset.load()).body).toBe('built');
    expect(attempts).toBe(2);
  });
});

describe('compression settings, the same bytes whenever made (strong ETags)', () => {
  const body = Buffer.from(JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ zip: String(10000 + i), city: 'Burlington' }))));
  const br = (quality: number, size: number) =>
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_SIZE_HINT]: size,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    });

  it('answers: gzip 6 and brotli 4 for text; assets: gzip 9 and brotli 6', async () => {
    expect((await encode(body, 'gzip', 'answer')).equals(gzipSync(body, { level: 6 }))).toBe(true);
    expect((await encode(body, 'gzip', 'asset')).equals(gzipSync(body, { level: 9 }))).toBe(true);
    expect((await encode(body, 'br', 'answer')).equals(br(4, body.length))).toBe(true);
    expect((await encode(body, 'br', 'asset')).equals(br(6, body.length))).toBe(true);
  });

  it('a compressing stream for a body written in pieces: the coding asked for, at the effort’s level', async () => {
    const read = async (stream: NodeJS.ReadWriteStream) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      const done = new Promise((r) => stream.on('end', r));
      stream.write(body.subarray(0, 1000));
      stream.end(body.subarray(1000));
      await done;
      return Buffer.concat(chunks);
    };
    expect(gunzipSync(await read(compressingStream('gzip', 'answer'))).equals(body)).toBe(true);
    expect(brotliDecompressSync(await read(compressingStream('br', 'answer'))).equals(body)).toBe(true);
    expect((await read(compressingStream('gzip', 'asset'))).equals(gzipSync(body, { level: 9 }))).toBe(true);
  });

  it('a representation counts only the codings it has made', async () => {
    const rep = new Representations(body.toString());
    expect(rep.encodedBytes).toBe(0);
    const gz = await rep.in('gzip', 'answer');
    expect(rep.encodedBytes).toBe(gz.length);
  });
});
