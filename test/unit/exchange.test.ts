import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { COMPRESS_MIN_BYTES, Representations } from '../../src/http/compression.js';
import { Exchange } from '../../src/http/exchange.js';
import { PAGE_HEADERS } from '../../src/http/headers.js';

type Handler = (ex: Exchange, req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A real node:http server on an ephemeral port whose handler gets an Exchange, as the dispatcher makes one. */
async function serving(handler: Handler): Promise<string> {
  const server: Server = createServer((req, res) => {
    const [path, query = ''] = (req.url ?? '/').split('?');
    void handler(new Exchange(req, res, 'req-42', path!, query), req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

/** The response's headers in the order they came, without node's own (date, connection, keep-alive). */
const headersOf = (r: Response) => [...r.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name));

describe('an exchange’s answers', () => {
  it('send: security headers, the request id, gathered headers, its own, the type and the byte length, then the body', async () => {
    const url = await serving((ex) => {
      ex.headers.push('ratelimit-limit', '10');
      ex.send(201, 'text/plain; charset=utf-8', 'café', ['cache-control', 'no-store']);
      // A second answer is dropped: the first has gone out.
      ex.send(500, 'text/plain', 'late');
    });
    const r = await fetch(url);
    expect(r.status).toBe(201);
    expect(headersOf(r)).toEqual([
      ['cache-control', 'no-store'],
      ['content-length', '5'],
      ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
      ['content-type', 'text/plain; charset=utf-8'],
      ['ratelimit-limit', '10'],
      ['referrer-policy', 'no-referrer'],
      ['x-content-type-options', 'nosniff'],
      ['x-frame-options', 'DENY'],
      ['x-request-id', 'req-42'],
    ]);
    expect(await r.text()).toBe('café');
  });

  it('a large string body goes out whole beside its head', async () => {
    const big = 'z'.repeat(70 * 1024);
    const url = await serving((ex) => ex.send(200, 'text/plain', big));
    const r = await fetch(url);
    expect(r.headers.get('content-length')).toBe(String(big.length));
    expect(await r.text()).toBe(big);
  });

  it('replaceHeaders swaps the gathered headers of those names, keeping the others', async () => {
    const url = await serving((ex) => {
      ex.headers.push('ratelimit-limit', '10', 'ratelimit-remaining', '9', 'vary', 'Origin');
      ex.replaceHeaders(['ratelimit-limit', '5', 'ratelimit-remaining', '0']);
      expect(ex.headers).toEqual(['vary', 'Origin', 'ratelimit-limit', '5', 'ratelimit-remaining', '0']);
      ex.sendEmpty(204);
    });
    const r = await fetch(url);
    expect([r.status, r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining'), r.headers.get('vary')]).toEqual([204, '5', '0', 'Origin']);
  });

  it('sendCompressible: small bodies as they are; large ones compressed when the client takes it, with Vary either way', async () => {
    const large = JSON.stringify({ rows: Array.from({ length: 300 }, (_, i) => ({ zip: String(10000 + i) })) });
    expect(large.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
    const url = await serving(async (ex, req) => {
      await ex.sendCompressible(200, 'application/json', req.url === '/small' ? '{"a":1}' : large, ['cache-control', 'no-store']);
    });
    const small = await fetch(`${url}/small`, { headers: { 'accept-encoding': 'gzip' } });
    expect([small.headers.get('content-encoding'), small.headers.get('vary'), await small.text()]).toEqual([null, null, '{"a":1}']);
    const plain = await fetch(`${url}/large`, { headers: { 'accept-encoding': 'identity' } });
    expect([plain.headers.get('content-encoding'), plain.headers.get('vary'), await plain.text()]).toEqual([null, 'accept-encoding', large]);
    // Read raw, so that fetch does not undo the coding.
    const raw = await rawGet(`${url}/large`, { 'accept-encoding': 'gzip' });
    expect([raw.headers['content-encoding'], raw.headers.vary, raw.headers['cache-control']]).toEqual(['gzip', 'accept-encoding', 'no-store']);
    expect(gunzipSync(raw.body).toString()).toBe(large);
  });

  it('sendRepresentation: its ETag, 304 when the client has it in any coding, else the coding it asks for with that coding’s tag', async () => {
    const text = 'x'.repeat(COMPRESS_MIN_BYTES * 2);
    const rep = new Representations(text);
    const small = new Representations('{"small":true}');
    const url = await serving(async (ex, req) => {
      await ex.sendRepresentation('application/json', req.url === '/small' ? small : rep, ['cache-control', 'max-age=60']);
    });
    const first = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
    expect([first.status, first.headers.get('etag'), first.headers.get('vary'), first.headers.get('cache-control')]).toEqual([
      200,
      rep.etag,
      'accept-encoding',
      'max-age=60',
    ]);
    expect(await first.text()).toBe(text);
    const gz = await rawGet(url, { 'accept-encoding': 'gzip' });
    expect([gz.headers.etag, gz.headers['content-encoding']]).toEqual([rep.etagOf('gzip'), 'gzip']);
    expect(gunzipSync(gz.body).toString()).toBe(text);
    const again = await rawGet(url, { 'accept-encoding': 'gzip', 'if-none-match': rep.etagOf('gzip') });
    expect([again.status, again.headers.etag, again.body.length]).toEqual([304, rep.etagOf('gzip'), 0]);
    // A small answer is never compressed and varies by nothing.
    const s = await rawGet(`${url}/small`, { 'accept-encoding': 'gzip' });
    expect([s.status, s.headers.etag, s.headers.vary, s.headers['content-encoding'], s.body.toString()]).toEqual([
      200,
      small.etag,
      undefined,
      undefined,
      '{"small":true}',
    ]);
    const s304 = await rawGet(`${url}/small`, { 'if-none-match': small.etag });
    expect([s304.status, s304.headers.vary]).toEqual([304, undefined]);
  });

  it('a page’s headers when it is built with them; applyHeaders sets the same ahead for a handler that writes itself', async () => {
    const url = await serving((ex, _req, res) => {
      ex.baseHeaders = PAGE_HEADERS;
      ex.headers.push('vary', 'Origin');
      ex.applyHeaders('no-cache');
      res.end('page');
      ex.endStarted();
    });
    const r = await fetch(url);
    expect(r.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect([r.headers.get('x-request-id'), r.headers.get('cache-control'), r.headers.get('vary')]).toEqual(['req-42', 'no-cache', 'Origin']);
    expect(await r.text()).toBe('page');
  });

  it('its url, path and query as the client sent them; answered once the head is out', async () => {
    const seen: unknown[] = [];
    const url = await serving((ex) => {
      seen.push(ex.url, ex.path, ex.query, ex.answered);
      ex.send(200, 'text/plain', 'ok');
      seen.push(ex.answered);
    });
    await (await fetch(`${url}/api/zip/05401?x=1`)).text();
    expect(seen).toEqual(['/api/zip/05401?x=1', '/api/zip/05401', 'x=1', false, true]);
  });

  it('its signal aborts when the deadline passes, or when the client goes away before the answer; not after a whole answer', async () => {
    const events: string[] = [];
    let gone: () => void = () => {};
    const clientGone = new Promise<void>((resolve) => (gone = resolve));
    const url = await serving(async (ex, req) => {
      if (req.url === '/expire') {
        expect(ex.timedOut).toBe(false);
        ex.timeOut();
        events.push(`expired ${ex.timedOut} ${ex.signal.aborted}`);
        return ex.send(503, 'text/plain', 'late');
      }
      if (req.url === '/leave') {
        events.push('left: arrived');
        ex.signal.addEventListener('abort', () => {
          events.push('left: aborted');
          gone();
        });
        return;
      }
      const signal = ex.signal;
      ex.send(200, 'text/plain', 'done');
      ex.res.once('close', () => setImmediate(() => events.push(`done: aborted ${signal.aborted}`)));
    });
    await (await fetch(`${url}/expire`)).text();
    const leaving = new AbortController();
    const request = fetch(`${url}/leave`, { signal: leaving.signal }).catch(() => null);
    while (events.length < 2) await new Promise((r) => setImmediate(r));
    leaving.abort();
    await request;
    await clientGone;
    await (await fetch(`${url}/done`)).text();
    while (events.length < 4) await new Promise((r) => setImmediate(r));
    expect(events).toEqual(['expired true true', 'left: arrived', 'left: aborted', 'done: aborted false']);
  });
});

/** A GET whose body is read as bytes, as sent (fetch would decompress it). */
async function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | undefined>; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers as Record<string, string | undefined>, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
